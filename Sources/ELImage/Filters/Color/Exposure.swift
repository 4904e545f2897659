/// Multiplies R, G and B by 2^ev (`Shaders/color_exposure.glsl`).
public final class Exposure: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// Exposure value in stops, -10...10; 0 leaves the picture unchanged. Clamped; NaN means 0.
    public var exposure: Float {
        get { pieceFloat("ev", or: 0) }
        set { setPieceFloat("ev", newValue, in: -10...10, neutral: 0) }
    }

    public init(_ exposure: Float = 0) {
        super.init(piece: ColorPiece(builtIn: "exposure", source: EmbeddedShaders.colorExposureGlsl))
        self.exposure = exposure
    }
}
