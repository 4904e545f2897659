/// Adds `brightness` to R, G and B (`Shaders/color_brightness.glsl`).
public final class Brightness: PointFilter {
    public struct Parameters: Sendable {
        /// -1...1; 0 leaves the picture unchanged. Out-of-range values are clamped, NaN means 0.
        @Uniform("amount", in: -1...1) public var brightness: Float = 0
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "brightness", source: EmbeddedShaders.colorBrightnessGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init(_ brightness: Float = 0) {
        pass = ShaderPass(colorPiece: colorPiece)
        self.brightness = brightness
    }
}
