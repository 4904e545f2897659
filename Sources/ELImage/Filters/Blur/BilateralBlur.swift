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
    /// The same pass for an opaque picture (`TextureFrame.isOpaque`): colour only, alpha kept.
    private let opaquePass = ShaderPass(name: opaqueVariant.name, fragmentShader: opaqueVariant.source)
    private static let opaqueVariant = ShaderVariant("bilateral_blur", source: EmbeddedShaders.bilateralBlurFsh,
                                                     defines: [("OPAQUE_INPUT", 1)])
    public let outputs = OutputTargets()

    /// False: its 25 taps cost as much run inside a sink's pack as drawn (llvmpipe, 720p), and a
    /// fifth more at MPEG-2 siting, so it draws its frame.
    public var runsInsidePack: Bool { false }

    public init(spatialSigma: Float = 2, rangeSigma: Float = 0.1) {
        self.spatialSigma = spatialSigma
        self.rangeSigma = rangeSigma
    }

    public func prepare(in context: isolated RenderContext) throws {
        try pass.prepare(in: context)
        try opaquePass.prepare(in: context)
    }

    /// Draws the frame with the pass that suits it: an opaque picture's leaves alpha out.
    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        let size = (width: frame.width, height: frame.height)
        let output = try (frame.isOpaque ? opaquePass : pass)
            .draw([frame], extra: [], size: size, uniforms: uniforms(forInput: frame, outputSize: size), in: context)
        output.markOpaque(frame.isOpaque)
        deliver(output, in: context)
    }

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        let spatial = parameters.spatialSigma, range = parameters.rangeSigma
        return parameterUniforms.merging([
            "spatialFactor": .float(-1 / (2 * spatial * spatial)),
            "rangeFactor": .float(-1 / (2 * range * range)),
        ]) { $1 }
    }
}
