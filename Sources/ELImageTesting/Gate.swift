import ELImage
import Foundation

/// A point where threads stop until the test opens it: a detector, a writer or a consumer that is
/// stuck for as long as the test wants, instead of one that sleeps and hopes to be slow enough.
/// `waitUntilWaiting` tells the test when a thread has reached it.
///
/// ```swift
/// let gate = Gate()
/// let output = RawDataOutput { image in gate.pass(); ... }   // held here
/// #expect(await gate.waitUntilWaiting())
/// gate.open()
/// ```
public final class Gate: Sendable {
    private struct State: Sendable {
        var isOpen: Bool
        var waiting = 0
        var passed = 0
    }

    private let state: Waitable<State>
    private let condition = NSCondition()
    /// How long a thread waits at most (real time): a safety net, so that a test that fails before
    /// it opens the gate ends instead of hanging.
    private let timeout: Duration

    /// A gate, closed unless `isOpen`.
    public init(isOpen: Bool = false, timeout: Duration = Waitable<Int>.defaultTimeout) {
        state = Waitable(State(isOpen: isOpen))
        self.timeout = timeout
    }

    /// Blocks the calling thread while the gate is closed.
    public func pass() {
        let deadline = Date(timeIntervalSinceNow: timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        state.update { $0.waiting += 1 }
        while !state.value.isOpen, condition.wait(until: deadline) {}
        state.update { state in
            state.waiting -= 1
            state.passed += 1
        }
    }

    /// Lets every waiting and later thread through.
    public func open() { set(open: true) }

    /// Stops the threads that come from now on.
    public func close() { set(open: false) }

    /// True while open.
    public var isOpen: Bool { state.value.isOpen }
    /// How many threads wait at the gate now.
    public var waitingCount: Int { state.value.waiting }
    /// How many threads went through.
    public var passedCount: Int { state.value.passed }

    /// Waits until `count` threads wait at the gate; false when `timeout` passed first.
    @discardableResult
    public func waitUntilWaiting(_ count: Int = 1, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await state.wait(timeout: timeout) { $0.waiting >= count }
    }

    /// Waits until `count` threads in all went through; false when `timeout` passed first.
    @discardableResult
    public func waitUntilPassed(_ count: Int, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await state.wait(timeout: timeout) { $0.passed >= count }
    }

    private func set(open: Bool) {
        condition.lock()
        defer { condition.unlock() }
        state.update { $0.isOpen = open }
        condition.broadcast()
    }
}
