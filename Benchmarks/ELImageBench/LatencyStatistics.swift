/// Percentiles of per-frame times.
struct LatencyStatistics: Codable {
    let frames: Int
    let meanMilliseconds: Double
    let p50: Double
    let p90: Double
    let p99: Double
    /// Frames per second from the mean.
    let throughput: Double

    init(milliseconds samples: [Double]) {
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
            return sorted[min(sorted.count - 1, max(0, rank))]
        }
        frames = sorted.count
        meanMilliseconds = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
        p50 = percentile(50)
        p90 = percentile(90)
        p99 = percentile(99)
        throughput = meanMilliseconds > 0 ? 1000 / meanMilliseconds : 0
    }
}

/// Milliseconds elapsed while `body` runs.
func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}
