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
final class RenderThread: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `pending`, `stopRequested` and `exited` are guarded by `condition`;
    // `threadID` is written before `init` returns and only read afterwards.
    private enum Work {
        case job(UnownedJob)
        case closure(() -> Void)
    }

    private let condition = NSCondition()
    private var pending: [Work] = []
    private var stopRequested = false
    private var exited = false
    private let lateJobs = DispatchQueue(label: "ELImage.render.late")
    private var threadID = pthread_self()
    /// Set when the thread has left its loop: its id may then be reused by another thread.
    private let hasExited = Atomic(false)
    private var thread: JoinableThread?

    /// Starts the thread. Its context owns it directly (it is not in the context's `ThreadGroup`,
    /// which the context joins before it stops this thread).
    init(name: String) throws(ELImageError) {
        let started = DispatchSemaphore(value: 0)
        let thread = JoinableThread(name: name, group: nil) { [self] in
            threadID = pthread_self()
            started.signal()
            runLoop()
        }
        self.thread = thread
        try thread.start()
        started.wait()
    }

    /// True when called on this render thread (never once it has ended: the system reuses ids).
    var isCurrent: Bool { !hasExited.load(ordering: .acquiring) && pthread_equal(pthread_self(), threadID) != 0 }

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
            let result = UncheckedBox<Result<T, Error>?>(nil)
            let work = UncheckedBox<(() throws -> T)?>(escapable)
            let done = DispatchSemaphore(value: 0)
            let queued = push(.closure {
                result.value = work.value.map { body in Result { try body() } }
                work.value = nil  // `body` must not outlive this call
                done.signal()
            })
            guard queued else { throw ELImageError.closed(what: "the render context") }
            done.wait()
            return result.value
        }
        guard let outcome else {
            throw ELImageError.invalidState(node: "RenderThread", reason: "work finished without a result")
        }
        return try outcome.get()
    }

    /// Lets the thread finish what is queued, then end. Does not wait: `join()` does.
    func stop() {
        condition.lock()
        stopRequested = true
        condition.signal()
        condition.unlock()
    }

    /// Waits until the thread has ended and is joined (after `stop()`).
    func join() async {
        await thread?.join()
    }

    /// Forgets the thread without waiting: it ends by itself after `stop()` (the safety net of a
    /// context that was never closed).
    func abandon() {
        thread = nil
    }

    private func push(_ work: Work) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !exited else { return false }
        pending.append(work)
        condition.signal()
        return true
    }

    private func runLoop() {
        while true {
            condition.lock()
            while pending.isEmpty && !stopRequested { condition.wait() }
            if pending.isEmpty && stopRequested {
                exited = true
                hasExited.store(true, ordering: .releasing)
                condition.unlock()
                eglReleaseThread()  // frees EGL's per-thread state here, not in a TLS destructor
                return
            }
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            condition.unlock()
            for work in batch {
                switch work {
                case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
                case .closure(let body): body()
                }
            }
        }
    }
}

/// A mutable box handed between threads where a semaphore orders the accesses.
final class UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: the semaphore that hands it over orders every access to `value`.
    var value: Value
    init(_ value: Value) { self.value = value }
}
