import ELImage

/// The recording's timeline, as the audio track needs it: the source time of the first frame (the
/// recording's zero) and the pauses the video timestamps skip, in video ticks. The render thread
/// writes it as it stamps frames (`RecordingSession`); the encoder thread maps audio with it, so
/// a stretch paused in the video is cut from the audio too and the two stay in step.
struct AudioTimeline: Sendable {
    /// One shift of the video timestamps: from source time `from` on, recording time is source
    /// time minus `origin + offset`; source times in `gapStart..<from` were paused (dropped).
    struct Shift: Sendable {
        var from: Int64
        var gapStart: Int64
        var offset: Int64
    }

    /// Ticks per second of the times below (the video's timescale).
    var timescale: Int32 = 90_000
    /// The first frame's source time; nil before the first frame.
    var origin: Int64?
    /// The shifts, in order (none without pauses).
    var shifts: [Shift] = []

    /// The offset to subtract from source time `time` (ticks) to get recording time, or nil when
    /// `time` fell into a pause.
    func shift(at time: Int64) -> Int64? {
        guard let origin else { return nil }
        var offset: Int64 = 0
        for shift in shifts {
            if time >= shift.from {
                offset = shift.offset
            } else {
                if time >= shift.gapStart { return nil }
                break
            }
        }
        return origin + offset
    }

    /// The source time elapsed since the first frame at recording time `ticks`: `ticks` plus the
    /// pauses cut out before it.
    func sourceElapsed(atRecordingTime ticks: Int64) -> Int64 {
        guard let origin else { return ticks }
        var offset: Int64 = 0
        for shift in shifts where shift.from - origin - shift.offset <= ticks { offset = shift.offset }
        return ticks + offset
    }
}
