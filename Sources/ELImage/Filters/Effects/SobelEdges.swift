/// Sobel edge detection on the BT.709 luma (`Shaders/sobel_edges.fsh`): the gradient magnitude
/// sqrt(gx² + gy²) of the 3x3 Sobel operators, times `strength`, as gray. Edges repeat the border.
public final class SobelEdges: SinglePassFilter, ParameterizedFilter {
    public struct Parameters: Sendable {
        /// 0...10, default 1. Clamped; NaN means 1.
        @Uniform("strength", in: 0...10) public var strength: Float = 1
    }

    public let parameters = Parameters()
    public let pass = ShaderPass(name: "sobel_edges", fragmentShader: EmbeddedShaders.sobelEdgesFsh)
    public let outputs = OutputTargets()

    /// Reads its input 0 at the 3x3 texels around the pixel, exactly: the colour before it runs in its pass.
    public var reads: InputReading { .texelCentres }

    public init(strength: Float = 1) {
        self.strength = strength
    }

    /// The edge magnitude, as gray: Y'CbCr sinks compute only Y'.
    public var drawsMonochrome: Bool { true }
}
