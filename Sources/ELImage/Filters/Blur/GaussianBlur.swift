
/// A Gaussian blur in two separable passes (`SeparableKernel`): one exact read for each of the
/// kernel's 6σ + 1 texels up to σ = 16/3 (radius 16), linear-sampling pairs above (about 3σ + 1
/// reads a pixel and pass).
///
/// The kernel is exp(-x² / 2σ²) on whole texels, cut at ceil(3σ) and normalised; edges repeat the
/// border pixels. For a very large sigma, scale the picture down first: the cost grows with sigma.
public final class GaussianBlur: FrameFilter, PlanDescribing {
    public let inputSlots = InputSlots()
    public let outputs = OutputTargets()
    private let state = Locked<Float>(0)

    /// The largest sigma, in pixels.
    public static let maximumSigma: Float = 32

    /// Standard deviation in pixels, 0...32; 0 leaves the picture unchanged. Clamped; NaN means 0.
    public var sigma: Float {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = FilterParameter.clamp(newValue, to: 0...Self.maximumSigma, neutral: 0) } }
    }

    package var planSummary: String {
        let reads = SeparableKernel.gaussian(sigma: Double(sigma)).readsPerPixel
        return sigma > 0 ? "2 passes (separable, \(reads) reads a pixel each)" : "no pass (sigma 0)"
    }

    public init(sigma: Float = 2) {
        self.sigma = sigma
    }

    public func prepare(in context: isolated RenderContext) throws {
        let sigma = self.sigma
        if sigma > 0 { try SeparableKernel.gaussian(sigma: Double(sigma)).prepare(in: context) }
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let sigma = self.sigma
        guard sigma > 0 else { return frame }
        return try SeparableKernel.gaussian(sigma: Double(sigma)).apply(to: frame, in: context)
    }
}
