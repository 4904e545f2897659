/// Replaces what is not the person with a picture or a second source's frames: the virtual
/// background of a video call, from a person mask (`PersonSegmenter` in ELImageDetection).
///
/// ```swift
/// let replace = try BackgroundReplace(background: try JPEGFile.read("beach.jpg"))   // or BackgroundReplace()
/// let people = try DetectorOutput(detector: try PersonSegmenter()) { replace.follow($0) }
/// camera --> people
/// camera --> replace --> encoder          // and, without a picture: clip --> replace (its second input)
/// ```
///
/// The background fills the frame, centred and cropped to its aspect. The newest mask is refined
/// for each frame (`PersonMaskRefiner`). Where the person's alpha is partial (the edge, hair) the
/// frame holds some of the old background: that share is swapped for the new background's (the
/// old one estimated beside the person, as `BackgroundBlur` estimates it), so no fringe of the old
/// scene stays; and at the edge some of the new background, blurred, is laid over the person
/// ("light wrap", `wrap`), so the edge takes on the new scene's light. 8 passes. Until a mask and a background are
/// there, the frame passes on unchanged, with no draw, counted in `statistics.framesWithoutMask`.
public final class BackgroundReplace: FrameFilter, PersonMaskFollowing, PlanDescribing {
    /// The frames seen so far.
    public struct Statistics: Sendable, Equatable {
        /// Frames with the background replaced.
        public var framesReplaced = 0
        /// Frames passed on unchanged: no mask (or no background frame) had come yet.
        public var framesWithoutMask = 0

        public init(framesReplaced: Int = 0, framesWithoutMask: Int = 0) {
            self.framesReplaced = framesReplaced
            self.framesWithoutMask = framesWithoutMask
        }
    }

    /// The light wrap's blur, as a share of the frame's height.
    static let wrapSigma: Float = 0.012
    /// How far beside the person the old background is estimated (its blur), as a share of the
    /// frame's height: far enough that background pixels outweigh the edge's mixed ones.
    static let oldBackgroundSigma: Float = 0.015

    /// Input 0: the frames with the person; input 1 (optional): the background's frames.
    public let inputSlots = InputSlots(count: 2)
    public let outputs = OutputTargets()
    private let refiner = PersonMaskRefiner()
    private struct ReplaceState {
        var wrap: Float
        var statistics = Statistics()
        var picture: RGBAImage?
        var pictureVersion = 0
        /// The picture uploaded in a context (with its version).
        var uploaded: (context: RenderContext, frame: TextureFrame, version: Int)?
        /// The second input's newest frame.
        var secondInput: (context: RenderContext, frame: TextureFrame)?
    }
    private let state: Locked<ReplaceState>

    /// - Parameters:
    ///   - background: the new background; nil: the frames of a second source connected to input 1.
    ///   - wrap: 0...1, how much of the new background's light reaches the person's edge.
    /// - Throws: `ELImageError.invalidInput` when the picture is empty or its pixels do not fill it.
    public init(background: RGBAImage? = nil, wrap: Float = 0.35) throws {
        state = Locked(ReplaceState(wrap: FilterParameter.clamp(wrap, to: 0...1, neutral: 0)))
        try setBackground(background)
    }

    /// The background picture; nil: the second input's frames.
    public var picture: RGBAImage? { state.withLock { $0.picture } }

    /// Changes the background picture from the next frame on (any thread); nil: the second
    /// input's frames from now on.
    /// - Throws: `ELImageError.invalidInput` when the picture is empty or its pixels do not fill it.
    public func setBackground(_ picture: RGBAImage?) throws {
        if let picture {
            guard picture.width > 0, picture.height > 0, picture.pixels.count >= picture.width * picture.height * 4 else {
                throw ELImageError.invalidInput(
                    what: "a background picture of \(picture.width)x\(picture.height) with \(picture.pixels.count) bytes",
                    hint: "give an RGBA picture with width * height * 4 bytes")
            }
        }
        state.withLock { state in
            state.picture = picture
            state.pictureVersion += 1
        }
    }

    /// 0...1. Clamped; NaN means 0.
    public var wrap: Float {
        get { state.withLock { $0.wrap } }
        set { state.withLock { $0.wrap = FilterParameter.clamp(newValue, to: 0...1, neutral: 0) } }
    }

    public var personMask: PersonMask? {
        get { refiner.mask }
        set { refiner.mask = newValue }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    package var planSummary: String { "8 passes (mask refined, old background and light wrap at 1/4 blurred, composited)" }

    public func prepare(in context: isolated RenderContext) throws {
        try PersonMaskRefiner.prepare(in: context)
        _ = try context.program(named: "background_wrap_source", fragment: EmbeddedShaders.backgroundWrapSourceFsh)
        _ = try context.program(named: "background_replace_composite", fragment: EmbeddedShaders.backgroundReplaceCompositeFsh)
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        if index == 1 {
            state.withLock { $0.secondInput = (context, frame) }
            return
        }
        deliver(try render(frame, in: context), in: context)
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        guard let background = try background(in: context), let mask = try refiner.refined(for: frame, in: context) else {
            state.withLock { $0.statistics.framesWithoutMask += 1 }
            return frame
        }
        let fit = Self.fit(background: (background.width, background.height), frame: (frame.width, frame.height))
        let edge = UniformValue.vec2(PersonMaskRefiner.edge)
        let (width, height) = PersonMaskRefiner.quarterSize(of: frame)
        let source = try context.renderPass(
            "background_wrap_source", fragment: EmbeddedShaders.backgroundWrapSourceFsh, inputs: [background, mask],
            width: width, height: height, like: frame,
            uniforms: ["fit": .vec4(fit), "outputTexel": .vec2([1 / Float(width), 1 / Float(height)]), "edge": edge])
        let blurred = try SeparableKernel.gaussian(sigma: max(0.5, Double(Self.wrapSigma) * Double(frame.height) / 4))
            .apply(to: source, in: context)
        let oldBackground = try PersonMaskRefiner.blurredBackground(
            of: frame, mask: mask, sigma: max(1, Double(Self.oldBackgroundSigma) * Double(frame.height) / 4), in: context)
        let output = try context.renderPass(
            "background_replace_composite", fragment: EmbeddedShaders.backgroundReplaceCompositeFsh,
            inputs: [frame, mask, background, blurred, oldBackground], width: frame.width, height: frame.height, like: frame,
            uniforms: ["fit": .vec4(fit), "edge": edge, "wrap": .float(wrap)])
        state.withLock { $0.statistics.framesReplaced += 1 }
        return output
    }

    /// The background for this frame: the picture (uploaded once per context and change) or the
    /// second input's newest frame; nil when neither is there yet.
    private func background(in context: isolated RenderContext) throws -> TextureFrame? {
        let (picture, version, uploaded, secondInput) = state.withLock { ($0.picture, $0.pictureVersion, $0.uploaded, $0.secondInput) }
        guard let picture else { return secondInput.flatMap { $0.context === context ? $0.frame : nil } }
        if let uploaded, uploaded.context === context, uploaded.version == version { return uploaded.frame }
        let frame = try context.makeFrame(width: picture.width, height: picture.height, timestamp: .zero)
        try picture.pixels.withUnsafeBytes { try context.upload($0, bytesPerRow: picture.bytesPerRow, into: frame) }
        state.withLock { $0.uploaded = (context, frame, version) }
        return frame
    }

    /// The part of the background that fills a frame of the same aspect, centred: (x, y, width,
    /// height) in the background's texture coordinates.
    static func fit(background: (width: Int, height: Int), frame: (width: Int, height: Int)) -> SIMD4<Float> {
        let backgroundAspect = Float(background.width) / Float(background.height)
        let frameAspect = Float(frame.width) / Float(frame.height)
        if backgroundAspect > frameAspect {
            let share = frameAspect / backgroundAspect
            return SIMD4((1 - share) / 2, 0, share, 1)
        }
        let share = backgroundAspect / frameAspect
        return SIMD4(0, (1 - share) / 2, 1, share)
    }
}
