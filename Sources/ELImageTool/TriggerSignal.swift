import Foundation
import UnixSignals

/// SIGUSR1 as the trigger of a pre-recording run (`--pre-record`): each signal pulls the trigger;
/// the first one starts the file and says where it starts. SIGUSR1 is trapped from `init` until
/// the listening task is cancelled.
struct TriggerSignal: Sendable {
    private let signals: UnixSignalsSequence

    init() async {
        signals = await UnixSignalsSequence(trapping: .sigusr1)
    }

    /// Listens until the task is cancelled.
    func listen(_ trigger: @escaping @Sendable () -> Duration?) async {
        for await _ in signals {
            if let start = trigger() { Terminal.say("SIGUSR1: recording from \(RunCommand.seconds(start)) s") }
        }
    }
}
