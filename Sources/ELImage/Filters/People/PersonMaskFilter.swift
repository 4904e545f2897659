/// The person mask itself as frames, for effects of your own: white where the person is, black
/// for the background, refined for each frame as the background filters refine it (edges on the
/// frame's colour edges, smoothed over time, anti-aliased). Blend it (`BlendFilter`) or read it
/// back like any frame.
///
/// ```swift
/// let mask = PersonMaskFilter()
/// let people = try DetectorOutput(detector: try PersonSegmenter()) { mask.follow($0) }   // ELImageDetection
/// camera --> people
/// camera --> mask --> sink
/// ```
///
/// Until the first mask arrives the output is black (no person found yet), counted in
/// `statistics.framesWithoutMask`.
public final class PersonMaskFilter: FrameFilter, PersonMaskFollowing, PlanDescribing {
    /// The frames seen so far.
    public struct Statistics: Sendable, Equatable {
        public var framesMasked = 0
        /// Frames output black because no mask had come yet.
        public var framesWithoutMask = 0

        public init(framesMasked: Int = 0, framesWithoutMask: Int = 0) {
            self.framesMasked = framesMasked
            self.framesWithoutMask = framesWithoutMask
        }
    }

    public let inputSlots = InputSlots()
    public let outputs = OutputTargets()
    private let refiner = PersonMaskRefiner()
    private let counts = Locked(Statistics())

    public init() {}

    public var personMask: PersonMask? {
        get { refiner.mask }
        set { refiner.mask = newValue }
    }

    public var statistics: Statistics { counts.withLock { $0 } }

    package var planSummary: String { "3 passes (mask refined, drawn at the frame's size)" }

    public func prepare(in context: isolated RenderContext) throws {
        try PersonMaskRefiner.prepare(in: context)
        _ = try context.program(named: "person_mask_view", fragment: EmbeddedShaders.personMaskViewFsh)
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let mask = try refiner.refined(for: frame, in: context)
        counts.withLock { if mask == nil { $0.framesWithoutMask += 1 } else { $0.framesMasked += 1 } }
        // Without a mask: the same pass over the frame with an edge above every value draws black.
        let edge = mask == nil ? SIMD2<Float>(2, 3) : PersonMaskRefiner.edge
        return try context.renderPass(
            "person_mask_view", fragment: EmbeddedShaders.personMaskViewFsh, inputs: [mask ?? frame],
            width: frame.width, height: frame.height, like: frame, uniforms: ["edge": .vec2(edge)])
    }
}
