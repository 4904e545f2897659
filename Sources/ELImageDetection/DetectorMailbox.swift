import Foundation

/// The one-image slot between the render thread and a detector's worker: the render thread posts,
/// the worker takes, then says when it has finished the job. While an image waits, a newer one
/// replaces it (the caller counts the drop); or, for a detector that must see every sampled image
/// before the frame goes on (files, overlays in step with the video), the render thread waits
/// until the worker has finished the job it posted.
final class DetectorMailbox<Job: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is touched only while `condition` is locked.
    enum Posted {
        case queued, replacedOlder, closed
    }

    private let condition = NSCondition()
    private var pending: Job?
    private var closed = false
    private var posted = 0
    private var finished = 0

    /// Puts `job` in the slot. With `waitForResult`, blocks (a framework thread, never a Swift
    /// task) until the worker has finished it (or the mailbox closed); else replaces a waiting job.
    func post(_ job: Job, waitForResult: Bool) -> Posted {
        condition.lock()
        defer { condition.unlock() }
        while waitForResult, pending != nil, !closed { condition.wait() }
        guard !closed else { return .closed }
        let replaced = pending != nil
        pending = job
        if !replaced { posted += 1 }
        let ticket = posted
        condition.broadcast()
        while waitForResult, finished < ticket, !closed { condition.wait() }
        return replaced ? .replacedOlder : .queued
    }

    /// The waiting job; blocks until there is one. nil once closed and empty.
    func take() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while pending == nil, !closed { condition.wait() }
        defer { pending = nil }
        return pending
    }

    /// The worker finished the job it took last.
    func finishJob() {
        condition.lock()
        defer { condition.unlock() }
        finished += 1
        condition.broadcast()
    }

    /// No more posts; `take()` hands out what waits, then nil; waiting posters return.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
    }

    /// Drops what waits (after a failure); returns true when something did.
    func discard() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        defer { pending = nil }
        return pending != nil
    }
}
