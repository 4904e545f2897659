/// Blurs what is not the person: the background of a video call, from a person mask
/// (`PersonSegmenter` in ELImageDetection finds one a few times a second on a side branch).
///
/// ```swift
/// let blur = BackgroundBlur(strength: 0.7)
/// let people = try DetectorOutput(detector: try PersonSegmenter()) { blur.follow($0) }   // ELImageDetection
/// camera --> people
/// camera --> blur --> encoder
/// ```
///
/// Each frame: the newest mask is refined for it (`PersonMaskRefiner`: edges snapped to the
/// frame's colour edges, smoothed over time), the frame is shrunk to a quarter with every pixel
/// weighted by how much it is background, blurred, and divided by its blurred weight, so the
/// person never bleeds into the blurred background as a halo; the person is laid over it with the
/// mask's anti-aliased edge. 6 passes. Until the first mask arrives (or at strength 0) the frame
/// passes on unchanged, with no draw, counted in `statistics.framesWithoutMask`.
public final class BackgroundBlur: FrameFilter, PersonMaskFollowing, PlanDescribing {
    /// The frames seen so far.
    public struct Statistics: Sendable, Equatable {
        /// Frames with the background blurred.
        public var framesBlurred = 0
        /// Frames passed on unchanged because no mask had come yet.
        public var framesWithoutMask = 0

        public init(framesBlurred: Int = 0, framesWithoutMask: Int = 0) {
            self.framesBlurred = framesBlurred
            self.framesWithoutMask = framesWithoutMask
        }
    }

    /// The blur's standard deviation at `strength` 1, as a share of the frame's height (32 pixels
    /// at 1080p).
    public static let largestSigma: Float = 0.03

    public let inputSlots = InputSlots()
    public let outputs = OutputTargets()
    private let refiner = PersonMaskRefiner()
    private let state: Locked<(strength: Float, statistics: Statistics)>

    /// - Parameter strength: 0...1, how strongly the background is blurred (its standard deviation
    ///   is `strength` × 3 % of the frame's height).
    public init(strength: Float = 0.7) {
        state = Locked((FilterParameter.clamp(strength, to: 0...1, neutral: 0), Statistics()))
    }

    /// 0...1. Clamped; NaN means 0.
    public var strength: Float {
        get { state.withLock { $0.strength } }
        set { state.withLock { $0.strength = FilterParameter.clamp(newValue, to: 0...1, neutral: 0) } }
    }

    public var personMask: PersonMask? {
        get { refiner.mask }
        set { refiner.mask = newValue }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    package var planSummary: String { "6 passes (mask refined, background weighted at 1/4, blurred, composited)" }

    public func prepare(in context: isolated RenderContext) throws {
        try PersonMaskRefiner.prepare(in: context)
        _ = try context.program(named: "background_blur_composite", fragment: EmbeddedShaders.backgroundBlurCompositeFsh)
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let strength = self.strength
        guard strength > 0, let mask = try refiner.refined(for: frame, in: context) else {
            state.withLock { $0.statistics.framesWithoutMask += 1 }
            return frame
        }
        let sigma = Double(strength * Self.largestSigma) * Double(frame.height) / 4
        let blurred = try PersonMaskRefiner.blurredBackground(of: frame, mask: mask, sigma: sigma, in: context)
        let output = try context.renderPass(
            "background_blur_composite", fragment: EmbeddedShaders.backgroundBlurCompositeFsh,
            inputs: [frame, mask, blurred], width: frame.width, height: frame.height, like: frame,
            uniforms: ["edge": .vec2(PersonMaskRefiner.edge)])
        state.withLock { $0.statistics.framesBlurred += 1 }
        return output
    }
}
