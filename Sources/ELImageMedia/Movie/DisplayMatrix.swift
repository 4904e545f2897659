import ELImage

/// A container's display matrix (MP4/MOV `tkhd`, FFmpeg's `AV_PKT_DATA_DISPLAYMATRIX`): how the
/// stored picture is to be turned for display. Phones store portrait video sideways and say so here.
///
/// Nine 32-bit values, row by row; a, b, c, d (values 0, 1, 3, 4) are 16.16 fixed point. A stored
/// pixel (p, q) is shown at (a p + c q, b p + d q) plus a translation (libavutil/display.h), with
/// y pointing down.
public struct DisplayMatrix: Sendable, Hashable {
    /// The nine values as the container stores them.
    public var values: [Int32]

    /// - Returns: nil for fewer than nine values.
    public init?(_ values: [Int32]) {
        guard values.count >= 9 else { return nil }
        self.values = Array(values.prefix(9))
    }

    /// The orientation that shows the picture as the matrix asks: a multiple of 90° and an optional
    /// mirror. Nil when the matrix turns by another angle, skews, or is degenerate (ELImage turns
    /// pictures by quarter turns only; such files are shown as stored).
    public var orientation: Orientation? {
        let (a, b, c, d) = (Double(values[0]), Double(values[1]), Double(values[3]), Double(values[4]))
        // Each column is where one axis of the stored picture goes; scales (non-square pixels) are
        // divided out, and each direction must lie within about 1° of an axis, as FFmpeg requires.
        let firstLength = (a * a + b * b).squareRoot(), secondLength = (c * c + d * d).squareRoot()
        guard firstLength > 0, secondLength > 0 else { return nil }
        let axes = [a / firstLength, b / firstLength, c / secondLength, d / secondLength]
        let rounded = axes.map { $0.rounded() }
        guard zip(axes, rounded).allSatisfy({ abs($0 - $1) < 0.02 }) else { return nil }
        let signs = rounded.map { Int($0) }
        return Orientation.allCases.first { Self.axes(of: $0) == signs }
    }

    /// Where `orientation` sends the stored picture's x and y axes, as [a, b, c, d].
    static func axes(of orientation: Orientation) -> [Int] {
        func turn(_ vector: (x: Int, y: Int)) -> (x: Int, y: Int) {
            var (x, y) = vector
            for _ in 0..<(orientation.rotation.rawValue / 90) { (x, y) = (-y, x) }  // clockwise, y down
            if orientation.mirrored { x = -x }
            return (x, y)
        }
        let (xAxis, yAxis) = (turn((1, 0)), turn((0, 1)))
        return [xAxis.x, xAxis.y, yAxis.x, yAxis.y]
    }
}
