import CEGL
import Foundation
import Synchronization

/// The dedicated thread that runs a `RenderContext`'s work: Swift concurrency jobs for the actor
/// (it is the actor's serial executor) and plain closures (e.g. returning a texture to the pool
/// when a frame is released on another thread).
///
/// Because the render context's EGL context is current on this thread only, every piece of code
/// isolated to the `RenderContext` actor runs where its GL calls are valid.
///
/// **End.** `stop()` lets the thread finish what is queued and return; `join()` waits until it
/// is gone. Work that arrives after that finds no thread: closures are dropped (the GL objects
/// they would free went with the context) and `sync` throws `ELImageError.closed`. A Swift job
/// cannot be dropped (its task would wait forever), so a late job runs on a serial queue of
/// its own, one at a time, with no GL context current: the context's isolated API checks
/// `isClosed` first and throws. The queue's work holds this executor, so a late job never runs
/// on an executor that its own task has let go of meanwhile.
final class RenderThread: SerialExecutor, Sendable {
    private enum Work {
        case job(UnownedJob)
        case closure(() -> Void)
    }

    /// What is queued for the thread, under its lock.
    private struct WorkQueue {
        var pending: [Work] = []
        var stopRequested = false
        var exited = false
    }

    private let queue = Locked(WorkQueue())
    private let lateJobs = DispatchQueue(label: "ELImage.render.late")
    /// The thread's id, set by the thread itself before `init` returns.
    private let threadID = Atomic<pthread_t>(0)
    /// Set when the thread has left its loop: its id may then be reused by another thread.
    private let hasExited = Atomic(false)
    private let thread = Locked<JoinableThread?>(nil)

    /// Starts the thread. Its context owns it directly (it is not in the context's `ThreadGroup`,
    /// which the context joins before it stops this thread).
    init(name: String) throws(ELImageError) {
        let started = DispatchSemaphore(value: 0)
        let thread = JoinableThread(name: name, group: nil) { [self] in
            threadID.store(pthread_self(), ordering: .releasing)
            started.signal()
            runLoop()
        }
        self.thread.withLock { $0 = thread }
        try thread.start()
        started.wait()
    }

    /// True when called on this render thread (never once it has ended: the system reuses ids).
    var isCurrent: Bool {
        !hasExited.load(ordering: .acquiring) && pthread_equal(pthread_self(), threadID.load(ordering: .acquiring)) != 0
    }

    // MARK: SerialExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !push(.job(job)) {
            // Not inline: the job's task may go on elsewhere and free this executor before an
            // inline run would have returned here.
            lateJobs.async { [self] in job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
    }

    func isIsolatingCurrentContext() -> Bool? { isCurrent }

    // MARK: Plain work

    /// Runs `body` on the render thread, later; dropped once the thread has ended (then returns
    /// false).
    @discardableResult
    func submit(_ body: @escaping @Sendable () -> Void) -> Bool {
        push(.closure(body))
    }

    /// Runs `body` on the render thread and waits for it. Runs inline when already on the thread.
    /// - Throws: `ELImageError.closed` once the thread has ended.
    func sync<T>(_ body: () throws -> T) throws -> T {
        if isCurrent { return try body() }
        let outcome: Result<T, Error>? = try withoutActuallyEscaping(body) { escapable in
            // The closure runs on the render thread while this thread waits for it: the semaphore
            // orders every access to `result` and `work`.
            nonisolated(unsafe) var result: Result<T, Error>?
            nonisolated(unsafe) var work: (() throws -> T)? = escapable
            let done = DispatchSemaphore(value: 0)
            let queued = push(.closure {
                result = work.map { body in Result { try body() } }
                work = nil  // `body` must not outlive this call
                done.signal()
            })
            guard queued else { throw ELImageError.closed(what: "the render context") }
            done.wait()
            return result
        }
        guard let outcome else {
            throw ELImageError.invalidState(node: "RenderThread", reason: "work finished without a result")
        }
        return try outcome.get()
    }

    /// Lets the thread finish what is queued, then end. Does not wait: `join()` does.
    func stop() {
        queue.withCondition { queue in
            queue.stopRequested = true
            queue.broadcast()
        }
    }

    /// Waits until the thread has ended and is joined (after `stop()`).
    func join() async {
        await thread.withLock { $0 }?.join()
    }

    /// Forgets the thread without waiting: it ends by itself after `stop()` (the safety net of a
    /// context that was never closed).
    func abandon() {
        thread.withLock { $0 = nil }
    }

    private func push(_ work: Work) -> Bool {
        queue.withCondition { queue in
            guard !queue.exited else { return false }
            queue.pending.append(work)
            queue.broadcast()
            return true
        }
    }

    private func runLoop() {
        while true {
            let batch = queue.withCondition { queue -> [Work]? in
                while queue.pending.isEmpty && !queue.stopRequested { queue.wait() }
                if queue.pending.isEmpty && queue.stopRequested {
                    queue.exited = true
                    hasExited.store(true, ordering: .releasing)
                    return nil
                }
                defer { queue.pending.removeAll(keepingCapacity: true) }
                return queue.pending
            }
            guard let batch else {
                eglReleaseThread()  // frees EGL's per-thread state here, not in a TLS destructor
                return
            }
            for work in batch {
                switch work {
                case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
                case .closure(let body): body()
                }
            }
        }
    }
}
