/// An edge-preserving 5x5 bilateral blur in one pass (`Shaders/bilateral_blur.fsh`): each
/// neighbour weighs exp(-d² / 2 spatialSigma²) exp(-|Δrgb|² / 2 rangeSigma²), normalised, with d in
/// pixels and Δrgb the RGB difference to the centre pixel in 0...1 units. Edges repeat the border.
public final class BilateralBlur: SinglePassFilter, ParameterizedFilter {
    public struct Parameters: Sendable {
        /// The spatial standard deviation in pixels, 0.1...10 (default 2). Clamped; NaN means 2.
        @Uniform("spatialSigma", in: 0.1...10) public var spatialSigma: Float = 2
        /// The colour standard deviation in 0...1 units, 0.01...10 (default 0.1): differences well
        /// above it count as edges. Clamped; NaN means 0.1.
        @Uniform("rangeSigma", in: 0.01...10) public var rangeSigma: Float = 0.1
    }

    public let parameters = Parameters()
    public let pass = ShaderPass(name: "bilateral_blur", fragmentShader: EmbeddedShaders.bilateralBlurFsh)
    public let outputs = OutputTargets()

    /// False: its 25 taps cost as much run inside a sink's pack as drawn (llvmpipe, 720p), and a
    /// fifth more at MPEG-2 siting, so it draws its frame.
    public var runsInsidePack: Bool { false }

    public init(spatialSigma: Float = 2, rangeSigma: Float = 0.1) {
        self.spatialSigma = spatialSigma
        self.rangeSigma = rangeSigma
    }

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        let spatial = parameters.spatialSigma, range = parameters.rangeSigma
        return parameterUniforms.merging([
            "spatialFactor": .float(-1 / (2 * spatial * spatial)),
            "rangeFactor": .float(-1 / (2 * range * range)),
        ]) { $1 }
    }
}
