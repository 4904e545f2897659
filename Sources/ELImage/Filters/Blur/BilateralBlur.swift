/// An edge-preserving 5x5 bilateral blur in one pass (`Shaders/bilateral_blur.fsh`): each
/// neighbour weighs exp(-d² / 2 spatialSigma²) exp(-|Δrgb|² / 2 rangeSigma²), normalised, with d in
/// pixels and Δrgb the RGB difference to the centre pixel in 0...1 units. Edges repeat the border.
public final class BilateralBlur: ShaderFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// The spatial standard deviation in pixels, 0.1...10 (default 2). Clamped; NaN means 2.
    public var spatialSigma: Float {
        get { floatUniform("spatialSigma", or: 2) }
        set {
            let sigma = FilterParameter.clamp(newValue, to: 0.1...10, neutral: 2)
            setUniform("spatialSigma", .float(sigma))
            setUniform("spatialFactor", .float(-1 / (2 * sigma * sigma)))
        }
    }

    /// The colour standard deviation in 0...1 units, 0.01...10 (default 0.1): differences well
    /// above it count as edges. Clamped; NaN means 0.1.
    public var rangeSigma: Float {
        get { floatUniform("rangeSigma", or: 0.1) }
        set {
            let sigma = FilterParameter.clamp(newValue, to: 0.01...10, neutral: 0.1)
            setUniform("rangeSigma", .float(sigma))
            setUniform("rangeFactor", .float(-1 / (2 * sigma * sigma)))
        }
    }

    public init(spatialSigma: Float = 2, rangeSigma: Float = 0.1) {
        super.init(name: "bilateral_blur", fragmentShader: EmbeddedShaders.bilateralBlurFsh)
        self.spatialSigma = spatialSigma
        self.rangeSigma = rangeSigma
    }

    public override func frameUniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        ["texelSize": .vec2(SIMD2(1 / Float(input.width), 1 / Float(input.height)))]
    }
}
