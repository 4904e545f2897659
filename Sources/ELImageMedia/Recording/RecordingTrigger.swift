import ELImage

/// The trigger of a recording that pre-records: shared by the thread that pulls it (`pull`, at
/// the time of the frames the render thread has taken) and the encoder thread (which starts the
/// file when it sees it pulled).
final class RecordingTrigger: Sendable {
    /// Recording time kept before the trigger.
    let window: Duration
    /// The recording time (ticks) the file starts at, the trigger's less the window, once pulled.
    private let start = Locked<Int64?>(nil)

    init(window: Duration) {
        self.window = window
    }

    /// Pulls the trigger at recording time `time` (ticks of 1/`timescale`); later pulls change
    /// nothing. Returns whether this pull was the first.
    func pull(at time: Int64, timescale: Int32) -> Bool {
        start.withLock { start in
            guard start == nil else { return false }
            start = time - RecordingSession.ticks(window, timescale: timescale)
            return true
        }
    }

    var isPulled: Bool { fileStart != nil }

    /// Where the file starts, once the trigger is pulled.
    var fileStart: Int64? { start.withLock { $0 } }
}
