/// Scales each colour's distance from its BT.709 luma (`Shaders/color_saturation.glsl`).
public final class Saturation: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// 0...4; 1 leaves the picture unchanged, 0 gives gray. Clamped; NaN means 1.
    public var saturation: Float {
        get { pieceFloat("saturation", or: 1) }
        set { setPieceFloat("saturation", newValue, in: 0...4, neutral: 1) }
    }

    public init(_ saturation: Float = 1) {
        super.init(piece: ColorPiece(builtIn: "saturation", source: EmbeddedShaders.colorSaturationGlsl))
        self.saturation = saturation
    }
}
