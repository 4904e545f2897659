/// The affine maps between normalized Y'CbCr samples (a sample's code / (2^bits - 1), as 8-bit
/// textures hold them) and R'G'B', derived from a matrix's Kr/Kb and a range's offsets and scales
/// at the samples' bit depth (nothing is a rounded constant).
///
/// `rgb = matrix * yuv + offset` (to RGB) and `yuv = matrix * rgb + offset` (from RGB), where
/// `matrix` is a 3x3 in column-major order, ready for `glUniformMatrix3fv`.
public struct YCbCrConversion: Sendable, Equatable {
    /// Column-major 3x3.
    public let matrix: [Float]
    public let offset: SIMD3<Float>

    /// Y'CbCr samples of `bitsPerSample` bits → R'G'B' for `colorSpace`.
    public static func toRGB(_ colorSpace: ColorSpace, bitsPerSample: Int = 8) -> YCbCrConversion {
        let a = rgbFromYCbCr(colorSpace.matrix)
        let (scale, bias) = sampleToSignal(colorSpace.range, bitsPerSample: bitsPerSample)
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

    /// R'G'B' → Y'CbCr samples of `bitsPerSample` bits for `colorSpace`.
    public static func fromRGB(_ colorSpace: ColorSpace, bitsPerSample: Int = 8) -> YCbCrConversion {
        let (kr, kb) = colorSpace.matrix.coefficients
        let kg = 1 - kr - kb
        let signal: [[Double]] = [
            [kr, kg, kb],
            [-kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), (1 - kb) / (2 * (1 - kb))],
            [(1 - kr) / (2 * (1 - kr)), -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr))],
        ]
        let (scale, bias) = sampleToSignal(colorSpace.range, bitsPerSample: bitsPerSample)
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

    /// signal = scale * sample + bias, per component (Y', Cb, Cr), for samples of n bits normalized
    /// to 0...1 (v = code / (2^n - 1)), as BT.2100 and H.273 quantize them. With m = 2^n - 1 and
    /// s = 2^(n - 8): limited: Y' = (m v - 16 s) / (219 s), C = (m v - 128 s) / (224 s); full:
    /// Y' = v, C = (m v - 2^(n - 1)) / m. At 8 bits: Y' = (255 v - 16) / 219 and so on.
    static func sampleToSignal(_ range: ColorRange, bitsPerSample: Int = 8) -> (scale: [Double], bias: [Double]) {
        let largest = Double((1 << bitsPerSample) - 1), step = Double(1 << (bitsPerSample - 8))
        switch range {
        case .limited:
            let luma = largest / (219 * step), chroma = largest / (224 * step)
            return ([luma, chroma, chroma], [-16.0 / 219, -128.0 / 224, -128.0 / 224])
        case .full:
            let half = Double(1 << (bitsPerSample - 1))
            return ([1, 1, 1], [0, -half / largest, -half / largest])
        }
    }

    private init(rows: [[Double]], offset: [Double]) {
        matrix = (0..<3).flatMap { column in (0..<3).map { row in Float(rows[row][column]) } }
        self.offset = SIMD3(Float(offset[0]), Float(offset[1]), Float(offset[2]))
    }

    /// The identity map (RGB sources).
    public static let identity = YCbCrConversion(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], offset: [0, 0, 0])
}
