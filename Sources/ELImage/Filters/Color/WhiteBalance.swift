/// Shifts the white balance with per-channel gains that keep a gray's luma
/// (`Shaders/color_white_balance.glsl`): temperature along blue–amber, tint along green–magenta.
///
/// The gains are (1 + 0.2 t + 0.1 m, 1 - 0.2 m, 1 - 0.2 t + 0.1 m) for temperature t and tint m,
/// divided by their BT.709-weighted sum.
public final class WhiteBalance: PointFilter {
    public struct Parameters: Sendable {
        /// -1...1: positive is warmer (more red, less blue), negative cooler; 0 is neutral.
        /// Clamped; NaN means 0.
        @Uniform("temperature", in: -1...1) public var temperature: Float = 0
        /// -1...1: positive is more magenta, negative more green; 0 is neutral. Clamped; NaN means 0.
        @Uniform("tint", in: -1...1) public var tint: Float = 0
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "white_balance", source: EmbeddedShaders.colorWhiteBalanceGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init(temperature: Float = 0, tint: Float = 0) {
        pass = ShaderPass(colorPiece: colorPiece)
        self.temperature = temperature
        self.tint = tint
    }
}
