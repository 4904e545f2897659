/// Rotates hues: each colour turns about the gray axis R = G = B (`Shaders/color_hue.glsl`).
public final class Hue: PointFilter {
    public struct Parameters: Sendable {
        /// The rotation in degrees; 0 (or any multiple of 360) leaves the picture unchanged. Values
        /// are wrapped into -360...360; NaN and infinities mean 0.
        @Uniform("degrees", normalize: { $0.isFinite ? $0.truncatingRemainder(dividingBy: 360) : 0 })
        public var degrees: Float = 0
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "hue", source: EmbeddedShaders.colorHueGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init(degrees: Float = 0) {
        pass = ShaderPass(colorPiece: colorPiece)
        self.degrees = degrees
    }
}
