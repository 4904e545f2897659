import ELImage
import Foundation

/// A clock that stands still until the test moves it: give it to a render context
/// (`RenderContext(clock:)`, `EmbeddedPipeline(clock:)`) and real-time pacing and stall timeouts
/// happen exactly when the test advances it, never because the machine was slow.
///
/// Every wait on it (a framework thread's blocking wait, a task's `sleep`) ends when the clock is
/// advanced to or past its deadline. `waitForSleepers` lets a test wait until the code under test
/// has gone as far as it can without time passing:
///
/// ```swift
/// let clock = ManualClock()
/// let context = try RenderContext(clock: clock)
/// try source.start(..., pacing: .realTime)           // frame 0 is due at once
/// #expect(await clock.waitForSleepers())              // frame 1 waits for its time
/// clock.advance(by: .milliseconds(40))                // frame 1 is due now
/// ```
///
/// Its instants are `ContinuousClock`'s: it starts at the real time it was made and moves only by
/// `advance`.
public final class ManualClock: BlockingClock {
    public typealias Instant = ContinuousClock.Instant

    /// What a wait is: a framework thread blocked on its condition, or a task's `sleep`.
    private enum Sleeper: Sendable {
        case thread(NSCondition)
        case task(CheckedContinuation<Void, any Error>)
    }

    private struct Sleep: Sendable {
        let deadline: Instant
        let sleeper: Sleeper
    }

    private struct State: Sendable {
        var now: Instant
        /// The waits whose deadline has not come, by an id.
        var sleeps: [UInt64: Sleep] = [:]
        /// Task sleeps cancelled before they were registered.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state: Waitable<State>

    /// Where the clock started.
    public let start: Instant

    /// Starts the clock at `start`.
    public init(startingAt start: Instant = .now) {
        self.start = start
        state = Waitable(State(now: start))
    }

    /// Now, as far as the clock has been advanced.
    public var now: Instant { state.value.now }

    /// How far the clock has been advanced since it started.
    public var elapsed: Duration { now - start }

    public var minimumResolution: Duration { .zero }

    /// The deadlines of the waits pending now, earliest first.
    public var deadlines: [Instant] { state.value.sleeps.values.map(\.deadline).sorted() }

    /// Waits until the deadlines of the pending waits (earliest first) are `expected`: for a thread
    /// whose wait can also end by its condition's own signal (a queue's producer) and that then
    /// waits again. False when `timeout` (real time) passed first.
    @discardableResult
    public func waitForDeadlines(_ expected: [Instant], timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await state.wait(timeout: timeout) { $0.sleeps.values.map(\.deadline).sorted() == expected }
    }

    /// Moves the clock forward by `duration` and ends every wait whose deadline has come.
    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves the clock to `instant` (never backwards) and ends every wait whose deadline has come.
    public func advance(to instant: Instant) {
        var due: [Sleep] = []
        state.update { state in
            state.now = max(state.now, instant)
            for (id, sleep) in state.sleeps where sleep.deadline <= state.now {
                due.append(sleep)
                state.sleeps[id] = nil
            }
        }
        for sleep in due {
            switch sleep.sleeper {
            case .thread(let condition):
                // The waiting thread holds the lock until it waits: taking it here means the
                // broadcast cannot come before its wait.
                condition.lock()
                condition.broadcast()
                condition.unlock()
            case .task(let continuation):
                continuation.resume()
            }
        }
    }

    /// Waits until at least `count` waits are pending on the clock: the code under test has gone
    /// as far as it can without time passing. False when `timeout` (real time) passed first.
    ///
    /// A thread whose wait also ends by its condition's own signal leaves the pending waits for a
    /// moment before it waits again: to act on a particular deadline, use `waitForDeadlines`.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await state.wait(timeout: timeout) { $0.sleeps.count >= count }
    }

    // MARK: BlockingClock

    public func wait(on condition: NSCondition, until deadline: Instant) {
        var id: UInt64?
        state.update { state in
            guard state.now < deadline else { return }
            state.nextID += 1
            state.sleeps[state.nextID] = Sleep(deadline: deadline, sleeper: .thread(condition))
            id = state.nextID
        }
        guard let id else { return }
        condition.wait()  // until advanced past the deadline, or the condition's own signal
        state.update { $0.sleeps[id] = nil }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        var newID: UInt64 = 0
        state.update { state in
            state.nextID += 1
            newID = state.nextID
        }
        let id = newID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                var outcome: Result<Void, any Error>?
                state.update { state in
                    if state.cancelled.remove(id) != nil {
                        outcome = .failure(CancellationError())
                    } else if state.now >= deadline {
                        outcome = .success(())
                    } else {
                        state.sleeps[id] = Sleep(deadline: deadline, sleeper: .task(continuation))
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            var waiting: Sleep?
            state.update { state in
                waiting = state.sleeps.removeValue(forKey: id)
                if waiting == nil { state.cancelled.insert(id) }
            }
            if case .task(let continuation) = waiting?.sleeper { continuation.resume(throwing: CancellationError()) }
        }
        state.update { _ = $0.cancelled.remove(id) }
    }
}
