/// Measures how the sound device's clock runs against the monotonic clock, from the times the
/// captured blocks arrive, and says when to correct.
///
/// Each block gives an error: when its first sample was captured by the monotonic clock (arrival
/// minus the server's latency) minus when the samples counted so far say it was. Delivery jitter
/// (a server that hands out blocks in bursts) only makes blocks late, so the smallest error of
/// each second is the clock's true offset; the drift is the slope of those minima (least squares),
/// in parts per million.
struct DriftEstimator {
    /// (seconds since the first block, smallest error in that second).
    private var points: [(time: Double, error: Double)] = []
    private var windowStart: Double?
    private var windowMinimum = Double.infinity

    /// Adds a block's error (seconds) at `time` (seconds since the first block).
    mutating func add(error: Double, at time: Double) {
        if windowStart == nil { windowStart = time }
        windowMinimum = min(windowMinimum, error)
        if let start = windowStart, time - start >= 1 {
            points.append((start, windowMinimum))
            if points.count > 120 { points.removeFirst() }
            windowStart = time
            windowMinimum = .infinity
        }
    }

    /// The latest settled offset (seconds), once a second has passed.
    var offset: Double? { points.last?.error }

    /// The drift in parts per million (positive: the device's clock runs slow, its samples
    /// arrive later and later), from at least three seconds.
    var driftPPM: Double {
        guard points.count >= 3 else { return 0 }
        let count = Double(points.count)
        let meanTime = points.reduce(0) { $0 + $1.time } / count
        let meanError = points.reduce(0) { $0 + $1.error } / count
        var covariance = 0.0, variance = 0.0
        for point in points {
            covariance += (point.time - meanTime) * (point.error - meanError)
            variance += (point.time - meanTime) * (point.time - meanTime)
        }
        return variance > 0 ? covariance / variance * 1_000_000 : 0
    }

    /// Forgets the offset corrected (`seconds`) so the next windows measure what is left.
    mutating func corrected(by seconds: Double) {
        points = points.map { ($0.time, $0.error - seconds) }
    }
}
