/// How a worker thread's job ended (a recording, a file sink), told to everyone who waits.
///
/// The worker records the outcome as its last act; `value()` then joins the worker's thread
/// (attached with `attach(_:)`), so that whoever hears the outcome knows the thread and everything
/// it held (x264, the muxer, its GL context) are gone.
package final class WorkerOutcome<Value: Sendable>: Sendable {
    private struct OutcomeState {
        var outcome: Result<Value, ELImageError>?
        var waiters: [CheckedContinuation<Result<Value, ELImageError>, Never>] = []
        var worker: JoinableThread?
    }
    private let state = Locked(OutcomeState())

    /// Sets the outcome (the first one counts) and wakes the waiters.
    package init() {}

    package func record(_ outcome: Result<Value, ELImageError>) {
        let waiters = state.withLock { state in
            guard state.outcome == nil else { return [CheckedContinuation<Result<Value, ELImageError>, Never>]() }
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume(returning: outcome) }
    }

    /// The thread whose job this is: `value()` joins it before returning.
    package func attach(_ worker: JoinableThread) {
        state.withLock { $0.worker = worker }
    }

    /// Waits until the outcome is recorded and the attached thread, if any, is joined.
    package func value() async -> Result<Value, ELImageError> {
        let outcome = await recorded()
        await state.withLock { $0.worker }?.join()
        return outcome
    }

    private func recorded() async -> Result<Value, ELImageError> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, ELImageError>? in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
