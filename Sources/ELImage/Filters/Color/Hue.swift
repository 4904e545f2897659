/// Rotates hues: each colour turns about the gray axis R = G = B (`Shaders/color_hue.glsl`).
public final class Hue: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// The rotation in degrees; 0 (or any multiple of 360) leaves the picture unchanged. Values are
    /// wrapped into -360...360; NaN and infinities mean 0.
    public var degrees: Float {
        get { pieceFloat("degrees", or: 0) }
        set {
            let wrapped = newValue.isFinite ? newValue.truncatingRemainder(dividingBy: 360) : 0
            setPieceUniform("degrees", .float(wrapped))
        }
    }

    public init(degrees: Float = 0) {
        super.init(piece: ColorPiece(builtIn: "hue", source: EmbeddedShaders.colorHueGlsl))
        self.degrees = degrees
    }
}
