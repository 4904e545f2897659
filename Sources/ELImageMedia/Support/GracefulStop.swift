import ELImage
import Foundation
import UnixSignals

/// Ctrl-C (SIGINT) and SIGTERM for programs that run a pipeline: the first signal calls your
/// `onSignal`, where you close the source (it stops nothing by itself), so the frames in flight are
/// finished and the outputs completed; a second one ends the process at once. Exiting with the
/// signal's status after the first is the caller's to do, once the context is closed.
///
/// ```swift
/// let (frames, signal) = try await GracefulStop.run(onSignal: { _ in await source.close() }) {
///     try await source.run(on: context)       // returns early after a signal
///     return counter.count
/// }
/// await context.close()
/// if let signal { exit(GracefulStop.exitStatus(for: signal)) }   // 130 or 143
/// ```
///
/// Signals are received through swift-service-lifecycle's `UnixSignalsSequence` (a Dispatch signal
/// source, so nothing runs in a signal handler). Its `ServiceGroup` is not used: it cannot tell the
/// caller which signal arrived (the exit status differs) and it forbids one signal meaning both
/// "stop gracefully" (first) and "quit now" (second).
public enum GracefulStop {
    /// Runs `body` while SIGINT and SIGTERM are trapped. The first signal calls `onSignal` (close
    /// your sources there; `body` should then return normally); a second exits the process at once
    /// with the status for that signal, even while `onSignal` still runs. Returns what `body`
    /// returned and the first signal, if any, once `onSignal` has returned too.
    public static func run<Value: Sendable>(
        onSignal: @escaping @Sendable (UnixSignal) async -> Void, _ body: () async throws -> Value
    ) async throws -> (value: Value, signal: UnixSignal?) {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let received = FirstSignal()
        let value = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { handlers in
                    for await signal in signals {
                        if received.take(signal) {
                            handlers.addTask { await onSignal(signal) }  // a second signal is still heard
                        } else {
                            FileHandle.standardError.write(Data("\n\(signal) again: quitting at once\n".utf8))
                            _exit(exitStatus(for: signal))
                        }
                    }
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
        return (value, received.signal)
    }

    /// The shell's status for a process ended by `signal`: 128 + its number (SIGINT 130, SIGTERM 143).
    public static func exitStatus(for signal: UnixSignal) -> Int32 {
        128 + signal.rawValue
    }
}

/// The first signal received.
private final class FirstSignal: Sendable {
    private let first = Locked<UnixSignal?>(nil)

    var signal: UnixSignal? { first.withLock { $0 } }

    /// Records `signal`; true when it is the first.
    func take(_ signal: UnixSignal) -> Bool {
        first.withLock { first in
            guard first == nil else { return false }
            first = signal
            return true
        }
    }
}
