/// The affine maps between 8-bit normalized Y'CbCr samples (texture values 0...1) and R'G'B',
/// derived from a matrix's Kr/Kb and a range's offsets and scales (nothing is a rounded constant).
///
/// `rgb = matrix * yuv + offset` (to RGB) and `yuv = matrix * rgb + offset` (from RGB), where
/// `matrix` is a 3x3 in column-major order, ready for `glUniformMatrix3fv`.
public struct YCbCrConversion: Sendable, Equatable {
    /// Column-major 3x3.
    public let matrix: [Float]
    public let offset: SIMD3<Float>

    /// Y'CbCr samples → R'G'B' for `colorSpace`.
    public static func toRGB(_ colorSpace: ColorSpace) -> YCbCrConversion {
        let a = rgbFromYCbCr(colorSpace.matrix)
        let (scale, bias) = sampleToSignal(colorSpace.range)
        // rgb = A * (scale ∘ v + bias) = (A * diag(scale)) v + A * bias
        var matrix = [[Double]](repeating: [0, 0, 0], count: 3)
        var offset = [0.0, 0.0, 0.0]
        for row in 0..<3 {
            for column in 0..<3 {
                matrix[row][column] = a[row][column] * scale[column]
                offset[row] += a[row][column] * bias[column]
            }
        }
        return YCbCrConversion(rows: matrix, offset: offset)
    }

    /// R'G'B' → Y'CbCr samples for `colorSpace`.
    public static func fromRGB(_ colorSpace: ColorSpace) -> YCbCrConversion {
        let (kr, kb) = colorSpace.matrix.coefficients
        let kg = 1 - kr - kb
        let signal: [[Double]] = [
            [kr, kg, kb],
            [-kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), (1 - kb) / (2 * (1 - kb))],
            [(1 - kr) / (2 * (1 - kr)), -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr))],
        ]
        let (scale, bias) = sampleToSignal(colorSpace.range)
        // v = (signal - bias) / scale
        let matrix = (0..<3).map { row in signal[row].map { $0 / scale[row] } }
        let offset = (0..<3).map { row in -bias[row] / scale[row] }
        return YCbCrConversion(rows: matrix, offset: offset)
    }

    /// R'G'B' from Y' (0...1) and Cb, Cr (-0.5...0.5): rows R, G, B.
    static func rgbFromYCbCr(_ matrix: ColorMatrix) -> [[Double]] {
        let (kr, kb) = matrix.coefficients
        let kg = 1 - kr - kb
        return [
            [1, 0, 2 * (1 - kr)],
            [1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg],
            [1, 2 * (1 - kb), 0],
        ]
    }

    /// signal = scale * sample + bias, per component (Y', Cb, Cr), for 8-bit samples normalized to
    /// 0...1. Limited: Y' = (255 v - 16) / 219, C = (255 v - 128) / 224. Full: Y' = v,
    /// C = (255 v - 128) / 255.
    static func sampleToSignal(_ range: ColorRange) -> (scale: [Double], bias: [Double]) {
        switch range {
        case .limited:
            return ([255.0 / 219, 255.0 / 224, 255.0 / 224], [-16.0 / 219, -128.0 / 224, -128.0 / 224])
        case .full:
            return ([1, 1, 1], [0, -128.0 / 255, -128.0 / 255])
        }
    }

    private init(rows: [[Double]], offset: [Double]) {
        matrix = (0..<3).flatMap { column in (0..<3).map { row in Float(rows[row][column]) } }
        self.offset = SIMD3(Float(offset[0]), Float(offset[1]), Float(offset[2]))
    }

    /// The identity map (RGB sources).
    public static let identity = YCbCrConversion(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], offset: [0, 0, 0])
}
