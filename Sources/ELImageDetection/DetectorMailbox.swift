import Foundation

/// The one-image slot between the render thread and a detector's worker: the render thread posts,
/// the worker takes. While an image waits, a newer one replaces it (the caller counts the drop),
/// or, for a detector that must see every sampled image, the render thread waits for the slot.
final class DetectorMailbox<Job: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `pending` and `closed` are touched only while `condition` is locked.
    enum Posted {
        case queued, replacedOlder, closed
    }

    private let condition = NSCondition()
    private var pending: Job?
    private var closed = false

    /// Puts `job` in the slot. With `waitForRoom`, blocks (a framework thread, never a Swift
    /// task) until the worker took the waiting job; else replaces it.
    func post(_ job: Job, waitForRoom: Bool) -> Posted {
        condition.lock()
        defer { condition.unlock() }
        while waitForRoom, pending != nil, !closed { condition.wait() }
        guard !closed else { return .closed }
        let replaced = pending != nil
        pending = job
        condition.broadcast()
        return replaced ? .replacedOlder : .queued
    }

    /// The waiting job; blocks until there is one. nil once closed and empty.
    func take() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while pending == nil, !closed { condition.wait() }
        defer {
            pending = nil
            condition.broadcast()
        }
        return pending
    }

    /// No more posts; `take()` hands out what waits, then nil. Returns true the first time.
    @discardableResult
    func close() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        defer { condition.broadcast() }
        let first = !closed
        closed = true
        return first
    }

    /// Drops what waits (after a failure); returns true when something did.
    func discard() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        defer { condition.broadcast() }
        let had = pending != nil
        pending = nil
        return had
    }
}
