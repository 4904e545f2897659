import CFFmpeg
import ELImage

/// A stream's time base (seconds per tick), and conversions between its ticks and `MediaTime`.
struct StreamTimeBase: Sendable {
    let rational: AVRational

    /// FFmpeg's "no timestamp" (`AV_NOPTS_VALUE`, a macro Swift cannot import).
    static let noTimestamp = Int64.min

    init(_ rational: AVRational) {
        self.rational = rational.num > 0 && rational.den > 0 ? rational : AVRational(num: 1, den: 1_000_000)
    }

    /// `ticks` as an exact `MediaTime` in the stream's own timescale (1/12800 stays 1/12800); for
    /// a time base like 1001/30000, ticks are multiplied out. Only when that overflows is the time
    /// rounded to microseconds.
    func time(ofTicks ticks: Int64) -> MediaTime {
        if rational.num == 1 { return MediaTime(value: ticks, timescale: rational.den) }
        let (value, overflow) = ticks.multipliedReportingOverflow(by: Int64(rational.num))
        if !overflow { return MediaTime(value: value, timescale: rational.den) }
        return MediaTime(microseconds: av_rescale_q(ticks, rational, AVRational(num: 1, den: 1_000_000)))
    }

    /// `time` in ticks, rounded down.
    func ticks(of time: MediaTime) -> Int64 {
        av_rescale_rnd(time.value, Int64(rational.den), Int64(time.timescale) * Int64(rational.num), AV_ROUND_DOWN)
    }

    /// The duration of `ticks` ticks in seconds.
    func seconds(ofTicks ticks: Int64) -> Double { Double(ticks) * av_q2d(rational) }
}
