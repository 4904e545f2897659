/// Transforms each colour by a 4x4 matrix plus an offset: (R, G, B, A) -> M (R, G, B, A) + offset,
/// mixed with the original by `intensity` (`Shaders/color_matrix.glsl`).
public final class ColorMatrixFilter: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// The identity matrix, row-major.
    public static let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]

    /// The matrix, row-major (16 values: the first four make output R).
    public var matrix: [Float] {
        guard case .mat4(let columns)? = uniformValues[colorPiece.prefix(at: 0) + "matrix"], columns.count == 16 else {
            return Self.identity
        }
        return Self.transposed(columns)
    }

    /// Added after the matrix, in 0...1 units.
    public var offset: SIMD4<Float> {
        if case .vec4(let value)? = uniformValues[colorPiece.prefix(at: 0) + "offset"] { return value }
        return .zero
    }

    /// 0...1: 0 leaves the picture unchanged, 1 applies the matrix fully. Clamped; NaN means 1.
    public var intensity: Float {
        get { pieceFloat("intensity", or: 1) }
        set { setPieceFloat("intensity", newValue, in: 0...1, neutral: 1) }
    }

    /// - Parameters:
    ///   - matrix: 16 values, row-major.
    ///   - offset: added after the matrix.
    /// - Throws: `ELImageError.invalidInput` for a matrix without 16 values or a value that is not finite.
    public init(matrix: [Float] = ColorMatrixFilter.identity, offset: SIMD4<Float> = .zero, intensity: Float = 1) throws {
        super.init(piece: ColorPiece(builtIn: "color_matrix", source: EmbeddedShaders.colorMatrixGlsl))
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
        setPieceUniform("matrix", .mat4(Self.transposed(matrix)))
        setPieceUniform("offset", .vec4(offset))
    }

    /// Row-major to column-major (and back).
    private static func transposed(_ values: [Float]) -> [Float] {
        (0..<16).map { values[($0 % 4) * 4 + $0 / 4] }
    }
}
