import Foundation

/// The wall-clock time of a recording's frames, written into its MP4 so that recordings made at
/// the same time (several cameras, several machines with synchronised clocks) line up: the time
/// the first frame reached the encoder (UTC) plus the source time elapsed since that frame, the
/// spans a pause cut out included.
///
/// It goes into the file twice: the movie's `creation_time` (`mvhd`, whole seconds; the format's
/// `creation_time` tag as FFmpeg reads it) and a producer reference time box (`prft`, ISO/IEC
/// 14496-12 §8.16.5) before every fragment, pairing the fragment's first sample with its NTP time,
/// to the millisecond.
struct RecordingWallClock: Sendable {
    /// When the first frame reached the encoder.
    let start: Date
    /// Ticks per second of recording times.
    let timescale: Int32
    /// The recording's timeline (origin and pauses), as the render thread writes it.
    let timeline: @Sendable () -> AudioTimeline
    /// `start` in microseconds since 1970-01-01 UTC.
    private let startMicroseconds: Int64

    init(start: Date, timescale: Int32, timeline: @escaping @Sendable () -> AudioTimeline) {
        self.start = start
        self.timescale = max(1, timescale)
        self.timeline = timeline
        startMicroseconds = Int64((start.timeIntervalSince1970 * 1e6).rounded())
    }

    /// Microseconds since 1970-01-01 UTC of the frame at recording time `ticks`.
    func microseconds(atRecordingTime ticks: Int64) -> Int64 {
        let elapsed = timeline().sourceElapsed(atRecordingTime: ticks)
        let scale = Int64(timescale)
        return startMicroseconds + elapsed / scale * 1_000_000 + elapsed % scale * 1_000_000 / scale
    }

    /// The wall-clock time of the frame at recording time `ticks`.
    func date(atRecordingTime ticks: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds(atRecordingTime: ticks)) / 1e6)
    }

    /// The time of the frame at recording time `ticks` (the recording's first, or a segment's)
    /// as ISO 8601 in UTC ("2026-11-27T19:00:00.123Z"), the form libavformat takes for
    /// `creation_time`.
    func creationTime(atRecordingTime ticks: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: ticks == 0 ? start : date(atRecordingTime: ticks))
    }
}
