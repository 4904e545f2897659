/// Unsharp masking with a 3x3 binomial blur (`Shaders/sharpen.fsh`):
/// colour + amount * (colour - blurred), blurred = [1 2 1] x [1 2 1] / 16 with repeated edges.
public final class Sharpen: SinglePassFilter, ParameterizedFilter {
    public struct Parameters: Sendable {
        /// 0...4; 0 leaves the picture unchanged. Clamped; NaN means 0.
        @Uniform("amount", in: 0...4) public var amount: Float = 0
    }

    public let parameters = Parameters()
    public let pass = ShaderPass(name: "sharpen", fragmentShader: EmbeddedShaders.sharpenFsh)
    public let outputs = OutputTargets()

    /// Reads its input 0 at the 3x3 texels around the pixel, exactly: the colour before it runs in its pass.
    public var reads: InputReading { .texelCentres }

    public init(amount: Float = 0.5) {
        self.amount = amount
    }
}
