import Foundation

/// One dedicated OS thread that runs a `RenderContext`'s work: Swift concurrency jobs for the actor
/// (it is the actor's serial executor) and plain closures (e.g. returning a texture to the pool
/// from a frame's deinit on another thread).
///
/// Because the render context's EGL context is current on this thread only, every piece of code
/// isolated to the `RenderContext` actor runs where its GL calls are valid.
final class RenderThread: SerialExecutor, @unchecked Sendable {
    private enum Work {
        case job(UnownedJob)
        case closure(() -> Void)
    }

    private let condition = NSCondition()
    private var pending: [Work] = []
    private var stopRequested = false
    private let exited = DispatchSemaphore(value: 0)
    /// Written once by the thread before `init` returns; read-only afterwards.
    private var threadID = pthread_self()

    init(name: String) {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            threadID = pthread_self()
            started.signal()
            runLoop()
        }
        thread.name = name
        thread.stackSize = 4 << 20
        thread.start()
        started.wait()
    }

    /// True when called on this render thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), threadID) != 0 }

    // MARK: SerialExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        push(.job(UnownedJob(job)))
    }

    func isIsolatingCurrentContext() -> Bool? { isCurrent }

    // MARK: Plain work

    /// Runs `body` on the render thread, later.
    func submit(_ body: @escaping @Sendable () -> Void) {
        push(.closure(body))
    }

    /// Runs `body` on the render thread and waits for it. Runs inline when already on the thread.
    func sync<T>(_ body: () throws -> T) throws -> T {
        if isCurrent { return try body() }
        let outcome: Result<T, Error>? = withoutActuallyEscaping(body) { escapable in
            let result = UncheckedBox<Result<T, Error>?>(nil)
            let work = UncheckedBox<(() throws -> T)?>(escapable)
            let done = DispatchSemaphore(value: 0)
            push(.closure {
                result.value = work.value.map { body in Result { try body() } }
                work.value = nil  // `body` must not outlive this call
                done.signal()
            })
            done.wait()
            return result.value
        }
        guard let outcome else {
            throw ELImageError.invalidState(node: "RenderThread", reason: "work finished without a result")
        }
        return try outcome.get()
    }

    /// Lets the thread finish what is queued, then exit. Called off the thread, waits until it has
    /// exited, so none of its work outlives the caller (or races the process's exit).
    func stop() {
        condition.lock()
        stopRequested = true
        condition.signal()
        condition.unlock()
        if !isCurrent { exited.wait() }
    }

    private func push(_ work: Work) {
        condition.lock()
        pending.append(work)
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        while true {
            condition.lock()
            while pending.isEmpty && !stopRequested { condition.wait() }
            if pending.isEmpty && stopRequested {
                condition.unlock()
                exited.signal()
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
    var value: Value
    init(_ value: Value) { self.value = value }
}
