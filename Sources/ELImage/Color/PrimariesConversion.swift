/// Linear-light RGB conversions between colour primaries, derived from their CIE 1931 xy
/// chromaticities (H.273) through XYZ, white points kept (all the primaries here are D65).
public enum PrimariesConversion {
    /// The xy chromaticities of red, green, blue and white.
    public static func chromaticities(_ primaries: ColorPrimaries) -> [SIMD2<Double>] {
        switch primaries {
        case .bt2020: [[0.708, 0.292], [0.170, 0.797], [0.131, 0.046], [0.3127, 0.3290]]
        case .smpte170m: [[0.630, 0.340], [0.310, 0.595], [0.155, 0.070], [0.3127, 0.3290]]
        case .bt470bg: [[0.64, 0.33], [0.29, 0.60], [0.15, 0.06], [0.3127, 0.3290]]
        case .bt709, .unspecified: [[0.64, 0.33], [0.30, 0.60], [0.15, 0.06], [0.3127, 0.3290]]
        }
    }

    /// RGB → XYZ for `primaries` (rows X, Y, Z); its middle row is the luminance of R, G and B.
    public static func rgbToXYZ(_ primaries: ColorPrimaries) -> [[Double]] {
        let points = chromaticities(primaries)
        func xyz(_ point: SIMD2<Double>) -> [Double] { [point.x / point.y, 1, (1 - point.x - point.y) / point.y] }
        let columns = points[0..<3].map(xyz)
        let basis = (0..<3).map { row in (0..<3).map { column in columns[column][row] } }
        let scale = solve(basis, xyz(points[3]))
        return basis.map { row in (0..<3).map { row[$0] * scale[$0] } }
    }

    /// Linear RGB in `source` primaries → linear RGB in `target` primaries, column-major for
    /// `glUniformMatrix3fv`.
    public static func matrix(from source: ColorPrimaries, to target: ColorPrimaries) -> [Float] {
        let forward = rgbToXYZ(source), backward = inverse(rgbToXYZ(target))
        let product = (0..<3).map { row in (0..<3).map { column in (0..<3).reduce(0.0) { $0 + backward[row][$1] * forward[$1][column] } } }
        return (0..<3).flatMap { column in (0..<3).map { row in Float(product[row][column]) } }
    }

    /// The luminance weights of R, G and B in `primaries`.
    public static func lumaWeights(_ primaries: ColorPrimaries) -> SIMD3<Float> {
        let y = rgbToXYZ(primaries)[1]
        return SIMD3(Float(y[0]), Float(y[1]), Float(y[2]))
    }

    private static func inverse(_ m: [[Double]]) -> [[Double]] {
        let determinant = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        let cofactors: [[Double]] = [
            [m[1][1] * m[2][2] - m[1][2] * m[2][1], m[0][2] * m[2][1] - m[0][1] * m[2][2], m[0][1] * m[1][2] - m[0][2] * m[1][1]],
            [m[1][2] * m[2][0] - m[1][0] * m[2][2], m[0][0] * m[2][2] - m[0][2] * m[2][0], m[0][2] * m[1][0] - m[0][0] * m[1][2]],
            [m[1][0] * m[2][1] - m[1][1] * m[2][0], m[0][1] * m[2][0] - m[0][0] * m[2][1], m[0][0] * m[1][1] - m[0][1] * m[1][0]],
        ]
        return cofactors.map { row in row.map { $0 / determinant } }
    }

    private static func solve(_ m: [[Double]], _ v: [Double]) -> [Double] {
        let inverted = inverse(m)
        return (0..<3).map { row in (0..<3).reduce(0.0) { $0 + inverted[row][$1] * v[$1] } }
    }
}
