/// Adds `brightness` to R, G and B (`Shaders/color_brightness.glsl`).
public final class Brightness: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// -1...1; 0 leaves the picture unchanged. Out-of-range values are clamped, NaN means 0.
    public var brightness: Float {
        get { pieceFloat("amount", or: 0) }
        set { setPieceFloat("amount", newValue, in: -1...1, neutral: 0) }
    }

    public init(_ brightness: Float = 0) {
        super.init(piece: ColorPiece(builtIn: "brightness", source: EmbeddedShaders.colorBrightnessGlsl))
        self.brightness = brightness
    }
}
