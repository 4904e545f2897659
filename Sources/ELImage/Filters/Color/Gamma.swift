/// Raises R, G and B to a power (`Shaders/color_gamma.glsl`).
public final class Gamma: PointFilter {
    public struct Parameters: Sendable {
        /// The exponent, 0.01...10; 1 leaves the picture unchanged, above 1 darkens the mid-tones.
        /// Clamped; NaN means 1.
        @Uniform("gamma", in: 0.01...10) public var gamma: Float = 1
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "gamma", source: EmbeddedShaders.colorGammaGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init(_ gamma: Float = 1) {
        pass = ShaderPass(colorPiece: colorPiece)
        self.gamma = gamma
    }
}
