/// Transforms each colour by a 4x4 matrix plus an offset: (R, G, B, A) -> M (R, G, B, A) + offset,
/// mixed with the original by `intensity` (`Shaders/color_matrix.glsl`).
public final class ColorMatrixFilter: PointFilter {
    public struct Parameters: Sendable {
        /// 0...1: 0 leaves the picture unchanged, 1 applies the matrix fully. Clamped; NaN means 1.
        @Uniform("intensity", in: 0...1) public var intensity: Float = 1
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "color_matrix", source: EmbeddedShaders.colorMatrixGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()
    /// The matrix (column-major, as the shader reads it) and the offset: checked as a whole by
    /// `setMatrix`, so they are not `@Uniform` parameters.
    private let transform = Locked<(columns: [Float], offset: SIMD4<Float>)>((ColorMatrixFilter.identity, .zero))

    /// The identity matrix, row-major.
    public static let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]

    /// The matrix, row-major (16 values: the first four make output R).
    public var matrix: [Float] { Self.transposed(transform.withLock { $0.columns }) }

    /// Added after the matrix, in 0...1 units.
    public var offset: SIMD4<Float> { transform.withLock { $0.offset } }

    public var colorUniforms: [String: UniformValue] {
        let (columns, offset) = transform.withLock { $0 }
        return parameterUniforms.merging(["matrix": .mat4(columns), "offset": .vec4(offset)]) { $1 }
    }

    /// - Parameters:
    ///   - matrix: 16 values, row-major.
    ///   - offset: added after the matrix.
    ///   - intensity: how much of the transformed colour replaces the original (0...1).
    /// - Throws: `ELImageError.invalidInput` for a matrix without 16 values or a value that is not finite.
    public init(matrix: [Float] = ColorMatrixFilter.identity, offset: SIMD4<Float> = .zero, intensity: Float = 1) throws {
        pass = ShaderPass(colorPiece: colorPiece)
        try setMatrix(matrix, offset: offset)
        self.intensity = intensity
    }

    /// Replaces the matrix and offset for the following frames.
    /// - Throws: `ELImageError.invalidInput` (and keeps the old values) for a matrix without 16
    ///   values or any value that is not finite.
    public func setMatrix(_ matrix: [Float], offset: SIMD4<Float> = .zero) throws {
        guard matrix.count == 16 else {
            throw ELImageError.invalidInput(what: "a colour matrix needs 16 values, got \(matrix.count)",
                                            hint: "pass a 4x4 matrix row by row")
        }
        try FilterParameter.requireFinite(matrix + [offset.x, offset.y, offset.z, offset.w], what: "the colour matrix")
        let columns = Self.transposed(matrix)
        transform.withLock { $0 = (columns, offset) }
    }

    /// Row-major to column-major (and back).
    private static func transposed(_ values: [Float]) -> [Float] {
        (0..<16).map { values[($0 % 4) * 4 + $0 / 4] }
    }
}
