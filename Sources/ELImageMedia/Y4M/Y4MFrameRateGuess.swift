import ELImage

/// A Y4M file's frame rate taken from its input's timestamps, for `FileOutput.y4m` without a
/// `frameRate`: the interval between the first two frames as an exact ratio (1001/24000 s gives
/// 24000:1001), snapped to a common rate when it lies within 0.01 % of one (a camera's 33367 µs
/// gives 30000:1001).
enum Y4MFrameRateGuess {
    /// What a file with one frame (or frames without increasing times) says: the old default.
    static let fallback: Y4MHeader.Ratio = 25

    static let common: [Y4MHeader.Ratio] = [
        .init(24000, 1001), 24, 25, .init(30000, 1001), 30, 48, 50, .init(60000, 1001), 60, 100, 120, 15, 12, 10, 5, 1,
    ]

    /// The rate of frames `first` then `second` apart; `fallback` when they do not move forward.
    static func rate(from first: MediaTime, to second: MediaTime) -> Y4MHeader.Ratio {
        // The interval is ticks / timescale seconds (exact when both share a timescale, as the
        // frames of one stream do), so frames per second = timescale / ticks.
        guard let interval = MediaTimeMath.checkedDifference(second, first), interval.value > 0 else { return fallback }
        let scale = Int64(interval.timescale), ticks = interval.value
        let divisor = gcd(scale, ticks)
        var rate = Y4MHeader.Ratio(Int(scale / divisor), Int(ticks / divisor))
        let value = Double(rate.numerator) / Double(rate.denominator)
        // The nearest common rate within 0.01 % (30 and 30000/1001 are 0.1 % apart).
        let distance = { (candidate: Y4MHeader.Ratio) in abs(Double(candidate.numerator) / Double(candidate.denominator) / value - 1) }
        if let near = common.min(by: { distance($0) < distance($1) }), distance(near) < 0.0001 { rate = near }
        guard rate.numerator <= Int(Int32.max), rate.denominator <= Int(Int32.max) else { return fallback }
        return rate
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }
}
