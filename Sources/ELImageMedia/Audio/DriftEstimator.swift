/// Measures how the sound device's clock runs against the monotonic clock, from the times the
/// captured blocks arrive, and predicts where it is heading.
///
/// Each block gives an error: when its first sample was captured by the monotonic clock (arrival
/// minus the server's latency) minus when the samples counted so far say it was. Delivery jitter
/// (a server that hands out blocks in bursts) only makes blocks late, so the smallest error of
/// each second is the clock's true offset; a straight line through the last two minutes of those
/// minima (least squares) gives the drift and the offset a second ahead. A second in which every
/// block came late (the capture thread kept waiting by a busy machine) lies above the line, one
/// after a change in the server's reported latency below it: seconds more than 1 ms above or
/// 3 ms below are left out and the line fitted again. The first
/// five seconds, while the stream starts (the server reports a latency that settles only then,
/// blocks it held are delivered at once), are left out too.
struct DriftEstimator {
    /// (seconds since the first block, smallest error in that second).
    private var points: [(time: Double, error: Double)] = []
    private var windowStart: Double?
    private var windowMinimum = Double.infinity
    /// Seconds settled, counting the start-up ones left out.
    private var seconds = 0

    /// Adds a block's error (seconds) at `time` (seconds since the first block); true when it
    /// settled a second.
    mutating func add(error: Double, at time: Double) -> Bool {
        if windowStart == nil { windowStart = time }
        windowMinimum = min(windowMinimum, error)
        guard let start = windowStart, time - start >= 1 else { return false }
        defer {
            windowStart = time
            windowMinimum = .infinity
        }
        seconds += 1
        guard seconds > 5 else { return false }
        points.append((start, windowMinimum))
        if points.count > 120 { points.removeFirst() }
        return true
    }

    /// The latest settled offset (seconds), once the start-up seconds have passed.
    var latest: Double? { points.last?.error }

    /// The offset (seconds) the line through the minima gives at `time`, once ten seconds are
    /// measured: a line through fewer is steered by one late second, and a clock 100 ppm off
    /// parts from the samples by a millisecond in ten seconds.
    func offset(at time: Double) -> Double? {
        guard points.count >= 10, let line = line() else { return nil }
        return line(time)
    }

    /// The drift in parts per million (positive: the device's clock runs slow, its samples
    /// arrive later and later), from three seconds after the start-up; 0 before.
    var driftPPM: Double { (line()?.slope ?? 0) * 1_000_000 }

    /// Moves what was measured by `seconds` (after a gap was filled, the errors step by its length).
    mutating func shift(by seconds: Double) {
        points = points.map { ($0.time, $0.error + seconds) }
    }

    private func line() -> StraightLine? {
        guard let first = StraightLine(fitting: points.map { ($0.time, $0.error) }) else { return nil }
        let kept = points.filter { (-0.003...0.001).contains($0.error - first($0.time)) }
        return StraightLine(fitting: kept.map { ($0.time, $0.error) }) ?? first
    }
}
