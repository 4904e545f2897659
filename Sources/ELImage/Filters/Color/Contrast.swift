/// Scales R, G and B about mid-gray: (c - 0.5) * contrast + 0.5 (`Shaders/color_contrast.glsl`).
public final class Contrast: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// 0...4; 1 leaves the picture unchanged, 0 makes it mid-gray. Clamped; NaN means 1.
    public var contrast: Float {
        get { pieceFloat("contrast", or: 1) }
        set { setPieceFloat("contrast", newValue, in: 0...4, neutral: 1) }
    }

    public init(_ contrast: Float = 1) {
        super.init(piece: ColorPiece(builtIn: "contrast", source: EmbeddedShaders.colorContrastGlsl))
        self.contrast = contrast
    }
}
