/// Shifts the white balance with per-channel gains that keep a gray's luma
/// (`Shaders/color_white_balance.glsl`): temperature along blue–amber, tint along green–magenta.
///
/// The gains are (1 + 0.2 t + 0.1 m, 1 - 0.2 m, 1 - 0.2 t + 0.1 m) for temperature t and tint m,
/// divided by their BT.709-weighted sum.
public final class WhiteBalance: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// -1...1: positive is warmer (more red, less blue), negative cooler; 0 is neutral.
    /// Clamped; NaN means 0.
    public var temperature: Float {
        get { pieceFloat("temperature", or: 0) }
        set { setPieceFloat("temperature", newValue, in: -1...1, neutral: 0) }
    }

    /// -1...1: positive is more magenta, negative more green; 0 is neutral. Clamped; NaN means 0.
    public var tint: Float {
        get { pieceFloat("tint", or: 0) }
        set { setPieceFloat("tint", newValue, in: -1...1, neutral: 0) }
    }

    public init(temperature: Float = 0, tint: Float = 0) {
        super.init(piece: ColorPiece(builtIn: "white_balance", source: EmbeddedShaders.colorWhiteBalanceGlsl))
        self.temperature = temperature
        self.tint = tint
    }
}
