import Foundation

/// The hand-over between a source's producer (its own thread) and its delivery thread, in order,
/// with the `SourcePolicy` deciding what happens when pictures come faster than the graph takes
/// them. Blocking calls are for framework threads only, never Swift tasks.
final class SourceQueue: @unchecked Sendable {
    // @unchecked Sendable: every stored property is touched only while `condition` is locked.

    enum Item {
        case frame(PixelBuffer, Orientation)
        /// Recoverable damage: counted, reported, the run goes on.
        case damage(any Error)
        /// An error to report that is no damage of a picture (a camera's device failure).
        case report(any Error)
        /// The run ends with this error (the pictures before it are delivered).
        case failure(any Error)
        case endOfStream
    }

    /// What became of a picture put into the queue.
    enum Outcome: Equatable {
        case queued
        /// It took the place of an older waiting picture, which is dropped.
        case replacedOlder
        /// The run is cancelled: the picture was not taken.
        case cancelled
    }

    let policy: SourcePolicy
    private let condition = NSCondition()
    private var items: [Item] = []
    private var waitingFrames = 0
    private var cancelled = false
    private var finished = false
    private var busy = false

    init(policy: SourcePolicy) { self.policy = policy }

    var isCancelled: Bool { locked { cancelled } }

    /// True when nothing waits and the delivery thread is not handling an item.
    var isIdle: Bool { locked { items.isEmpty && !busy } }

    /// Puts a picture in, waiting for room under back-pressure.
    func put(_ frame: PixelBuffer, orientation: Orientation) -> Outcome {
        locked {
            switch policy {
            case .backPressure(let capacity):
                while waitingFrames >= max(1, capacity), !cancelled { condition.wait() }
                guard !cancelled else { return .cancelled }
                items.append(.frame(frame, orientation))
                waitingFrames += 1
                condition.broadcast()
                return .queued
            case .newestWins:
                guard !cancelled else { return .cancelled }
                var outcome = Outcome.queued
                if case .frame = items.last {
                    items.removeLast()
                    outcome = .replacedOlder
                } else {
                    waitingFrames += 1
                }
                items.append(.frame(frame, orientation))
                condition.broadcast()
                return outcome
            }
        }
    }

    /// Puts an event in; never waits.
    func post(_ item: Item) {
        locked {
            items.append(item)
            condition.broadcast()
        }
    }

    /// The oldest item, waiting for one; nil once `finish()` was called and nothing waits. Marks
    /// the queue busy until the next `take`.
    func take() -> Item? {
        locked {
            busy = false
            while items.isEmpty, !finished { condition.wait() }
            guard !items.isEmpty else { return nil }
            let item = items.removeFirst()
            if case .frame = item { waitingFrames -= 1 }
            busy = true
            condition.broadcast()
            return item
        }
    }

    /// Waits until `deadline`; false when the run was cancelled meanwhile.
    func sleep(until deadline: ContinuousClock.Instant) -> Bool {
        locked {
            while !cancelled {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { break }
                let (seconds, attoseconds) = left.components
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18))
            }
            return !cancelled
        }
    }

    /// Stops the run: a producer waiting for room returns, and pictures put from now on are
    /// refused. Pictures already waiting are still taken (the delivery thread drops them).
    func cancel() {
        locked {
            cancelled = true
            condition.broadcast()
        }
    }

    /// No more items will come: `take` returns nil once the queue is empty.
    func finish() {
        locked {
            finished = true
            condition.broadcast()
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
