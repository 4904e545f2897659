
/// Skin smoothing that keeps skin texture real, with whitening and sharpening: a guided filter on
/// the luma computed at reduced resolution, confined to skin, with the finest texture put back.
///
/// ```swift
/// let beauty = Beauty()          // strength 0.7
/// camera --> beauty --> encoder
/// beauty.strength = 0.4          // takes effect from the next frame
/// ```
///
/// How it works (five passes; four at 1/f of the size, one at full size):
/// 1. Downsample by f (the smoothing `radius` / 2.5, at least 1): the mean colour per block, and a
///    skin likelihood from its chroma (a narrow wedge of hue around skin tones in BT.601 CbCr, at
///    moderate chroma: brown or blond hair, clothes and backgrounds fall outside).
/// 2.–3. Mean and variance of the luma over 5x5 blocks (16-bit packed, so small variances survive
///    8-bit frames), then the guided filter's coefficients a = var / (var + ε), b = mean (1 - a):
///    windows whose variance is small against ε (pores, blemishes, fine wrinkles) flatten; windows
///    with strong structure (eyes, lips, hair line) keep it.
/// 4. The 5x5 mean of a, b and the skin likelihood.
/// 5. At full size: smoothed luma a Y + b on skin, eased off across strong local gradients, plus
///    30 % of the finest detail (colour minus its 3x3 blur) so skin keeps pores and grain instead of
///    looking plastic; the same detail sharpens what is not skin; skin is lifted by whitening.
///
/// The work does not grow with the radius: a larger radius means a smaller reduced image. At
/// 1280x720 the whole filter costs less than one 5x5 bilateral pass (see `elimage-bench`).
/// `strength` 0 returns the input frame untouched.
public final class Beauty: FrameFilter, @unchecked Sendable {
    // The only mutable state is `state`, behind a lock (Locked).

    /// The filter's settings, each 0...1.
    public struct Settings: Sendable, Equatable {
        /// Scales smoothing, whitening and sharpening together; 0 is the identity.
        public var strength: Float = 0.7
        /// How far skin is smoothed.
        public var smoothing: Float = 1
        /// How much skin is brightened.
        public var whitening: Float = 0.3
        /// How much what is not skin (eyes, hair, clothes) is sharpened.
        public var sharpness: Float = 0.3
        /// The smoothing window's radius in pixels, 2...100; `nil` picks 1 % of the shorter side.
        public var radius: Float?

        public init() {}
    }

    private let state = Locked(Settings())

    /// The share of the finest detail kept on smoothed skin.
    static let textureAmount: Float = 0.3
    /// Local gradient magnitudes (0...1 per pixel) over which smoothing is eased off completely.
    static let edgeRange = SIMD2<Float>(0.05, 0.10)
    /// The standard deviation of the luma (0...1 units) that counts as structure rather than
    /// texture at full smoothing: ε = (0.3 strength smoothing)².
    static let edgeDeviation: Float = 0.25

    /// All settings at once (each clamped as its property is).
    public var settings: Settings {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = Self.sanitized(newValue) } }
    }

    /// 0...1 (default 0.7): scales everything; 0 is the identity. Clamped; NaN means the default.
    public var strength: Float {
        get { settings.strength }
        set { state.withLock { $0.strength = Self.clamp(newValue, neutral: Settings().strength) } }
    }

    /// 0...1 (default 1): how far skin is smoothed. Clamped; NaN means the default.
    public var smoothing: Float {
        get { settings.smoothing }
        set { state.withLock { $0.smoothing = Self.clamp(newValue, neutral: Settings().smoothing) } }
    }

    /// 0...1 (default 0.3): how much skin is brightened. Clamped; NaN means the default.
    public var whitening: Float {
        get { settings.whitening }
        set { state.withLock { $0.whitening = Self.clamp(newValue, neutral: Settings().whitening) } }
    }

    /// 0...1 (default 0.3): how much what is not skin is sharpened. Clamped; NaN means the default.
    public var sharpness: Float {
        get { settings.sharpness }
        set { state.withLock { $0.sharpness = Self.clamp(newValue, neutral: Settings().sharpness) } }
    }

    /// The smoothing radius in pixels, 2...100; `nil` (the default) picks 1 % of the frame's
    /// shorter side. Clamped; NaN means `nil`.
    public var radius: Float? {
        get { settings.radius }
        set { state.withLock { $0.radius = Self.sanitizedRadius(newValue) } }
    }

    public init(strength: Float = 0.7) {
        super.init()
        self.strength = strength
    }

    public override func prepare(in context: isolated RenderContext) throws {
        for pass in Pass.allCases { _ = try context.program(named: pass.name, fragment: pass.source) }
    }

    public override func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let settings = self.settings
        let smoothing = settings.strength * settings.smoothing
        let whitening = settings.strength * settings.whitening
        let sharpness = settings.strength * settings.sharpness
        guard smoothing > 0 || whitening > 0 || sharpness > 0 else { return frame }

        let factor = Self.reduction(radius: settings.radius, width: frame.width, height: frame.height)
        let lowWidth = (frame.width + factor - 1) / factor, lowHeight = (frame.height + factor - 1) / factor
        let texel = SIMD2(1 / Float(frame.width), 1 / Float(frame.height))
        let lowTexel = SIMD2(1 / Float(lowWidth), 1 / Float(lowHeight))
        let deviation = max(Self.edgeDeviation * smoothing, 1e-3)

        func pass(_ pass: Pass, _ inputs: [TextureFrame], width: Int = lowWidth, height: Int = lowHeight,
                  _ uniforms: [String: UniformValue] = [:]) throws -> TextureFrame {
            try context.renderPass(pass.name, fragment: pass.source, inputs: inputs, width: width, height: height,
                                   like: frame, uniforms: uniforms)
        }
        let reduced = try pass(.downsample, [frame], ["sampleOffset": .vec2(texel * Float(factor) / 4)])
        let moments = try pass(.moments, [reduced])
        let coefficients = try pass(.coefficients, [moments, reduced], ["epsilon": .float(deviation * deviation)])
        let smoothed = try pass(.box, [coefficients], ["texelSize": .vec2(lowTexel)])
        return try pass(.apply, [frame, smoothed], width: frame.width, height: frame.height, [
            "texelSize": .vec2(texel),
            "smoothing": .float(smoothing),
            "textureAmount": .float(Self.textureAmount),
            "sharpness": .float(sharpness),
            "whitening": .float(whitening),
            "edgeRange": .vec2(Self.edgeRange),
        ])
    }

    /// The downsampling factor: the radius over 2.5 (the 5x5 window's half-width), at least 1.
    static func reduction(radius: Float?, width: Int, height: Int) -> Int {
        let radius = radius ?? Float(min(width, height)) / 100
        return max(1, Int((radius / 2.5).rounded()))
    }

    private static func clamp(_ value: Float, neutral: Float) -> Float {
        FilterParameter.clamp(value, to: 0...1, neutral: neutral)
    }

    private static func sanitizedRadius(_ radius: Float?) -> Float? {
        guard let radius, !radius.isNaN else { return nil }
        return min(max(radius, 2), 100)
    }

    private static func sanitized(_ settings: Settings) -> Settings {
        let defaults = Settings()
        var result = settings
        result.strength = clamp(settings.strength, neutral: defaults.strength)
        result.smoothing = clamp(settings.smoothing, neutral: defaults.smoothing)
        result.whitening = clamp(settings.whitening, neutral: defaults.whitening)
        result.sharpness = clamp(settings.sharpness, neutral: defaults.sharpness)
        result.radius = sanitizedRadius(settings.radius)
        return result
    }

    private enum Pass: CaseIterable {
        case downsample, moments, coefficients, box, apply

        var name: String {
            switch self {
            case .downsample: "beauty_downsample"
            case .moments: "beauty_moments"
            case .coefficients: "beauty_coefficients"
            case .box: "beauty_box"
            case .apply: "beauty_apply"
            }
        }

        var source: String {
            switch self {
            case .downsample: EmbeddedShaders.beautyDownsampleFsh
            case .moments: EmbeddedShaders.beautyMomentsFsh
            case .coefficients: EmbeddedShaders.beautyCoefficientsFsh
            case .box: EmbeddedShaders.beautyBoxFsh
            case .apply: EmbeddedShaders.beautyApplyFsh
            }
        }
    }
}
