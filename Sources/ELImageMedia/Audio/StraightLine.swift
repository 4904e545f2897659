/// The least-squares straight line through points: how the sound clock's offset trends
/// (`DriftEstimator`), and how a soak's measured offsets do.
package struct StraightLine: Sendable {
    package var slope: Double
    package var intercept: Double

    /// The line through `points` (x, y); nil for fewer than three, or all at one x.
    package init?(fitting points: [(x: Double, y: Double)]) {
        guard points.count >= 3 else { return nil }
        let count = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / count
        let meanY = points.reduce(0) { $0 + $1.y } / count
        var covariance = 0.0, variance = 0.0
        for point in points {
            covariance += (point.x - meanX) * (point.y - meanY)
            variance += (point.x - meanX) * (point.x - meanX)
        }
        guard variance > 0 else { return nil }
        slope = covariance / variance
        intercept = meanY - slope * meanX
    }

    /// The line's y at `x`.
    package func callAsFunction(_ x: Double) -> Double { intercept + slope * x }
}
