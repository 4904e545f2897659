/// Raises R, G and B to a power (`Shaders/color_gamma.glsl`).
public final class Gamma: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// The exponent, 0.01...10; 1 leaves the picture unchanged, above 1 darkens the mid-tones.
    /// Clamped; NaN means 1.
    public var gamma: Float {
        get { pieceFloat("gamma", or: 1) }
        set { setPieceFloat("gamma", newValue, in: 0.01...10, neutral: 1) }
    }

    public init(_ gamma: Float = 1) {
        super.init(piece: ColorPiece(builtIn: "gamma", source: EmbeddedShaders.colorGammaGlsl))
        self.gamma = gamma
    }
}
