import ELImage
import Synchronization

/// How a worker thread's job ended (a recording, a file sink), told to everyone who waits.
///
/// Waiters hear the outcome once it is both recorded and published: a worker publishes as its last
/// act, after freeing what it held (x264, the muxer, its GL context), so a waiter that hears the
/// outcome can rely on that. Either step may come first.
final class WorkerOutcome<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, ELImageError>?
        var published = false
        var waiters: [CheckedContinuation<Result<Value, ELImageError>, Never>] = []
    }
    private let state = Mutex(State())

    /// Sets (or replaces) the outcome.
    func record(_ outcome: Result<Value, ELImageError>) {
        resumeIfReady { $0.outcome = outcome }
    }

    /// Lets the waiters hear the outcome.
    func publish() {
        resumeIfReady { $0.published = true }
    }

    /// Waits until the outcome is recorded and published.
    func value() async -> Result<Value, ELImageError> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, ELImageError>? in
                if state.published, let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func resumeIfReady(after change: (inout State) -> Void) {
        let (waiters, outcome) = state.withLock { state in
            change(&state)
            guard state.published, let outcome = state.outcome else {
                return ([CheckedContinuation<Result<Value, ELImageError>, Never>](), Result<Value, ELImageError>?.none)
            }
            defer { state.waiters = [] }
            return (state.waiters, outcome)
        }
        if let outcome { waiters.forEach { $0.resume(returning: outcome) } }
    }
}
