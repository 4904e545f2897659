/// The GPU side of every filter steered by a person mask: keeps the newest `PersonMask`, uploads
/// it when it changes, and refines it for each frame (`Shaders/person_mask_refine.fsh`): at half
/// the frame's size (at most 2.5 times the mask's), its edge moved onto the frame's colour edges
/// (joint bilateral upsampling guided by the frame) and smoothed over time against the previous
/// frame's refined mask, so a mask found a few times a second on a small picture neither shows
/// its staircase nor shimmers. 2 passes: the frame shrunk to the mask's size packed beside it,
/// then the refinement.
final class PersonMaskRefiner: Sendable {
    /// The refined mask values where the person's alpha starts and ends rising (a soft threshold
    /// at one half: the model's soft edge becomes an anti-aliased one).
    static let edge = SIMD2<Float>(0.3, 0.7)
    /// The colour distance at which a mask texel's weight falls to 0.6 (RGB in 0...1).
    static let rangeSigma: Float = 0.12
    /// How much of the previous refined mask stays where it agrees with the new one.
    static let keep: Float = 0.6

    private struct Incoming {
        var mask: PersonMask?
        var version = 0
    }

    /// What the render thread keeps between frames.
    private struct Rendered {
        let context: RenderContext
        var uploaded: TextureFrame
        var version: Int
        var previous: TextureFrame?
    }

    private let incoming = Locked(Incoming())
    private let rendered = Locked<Rendered?>(nil)

    /// The newest mask (any thread).
    var mask: PersonMask? {
        get { incoming.withLock { $0.mask } }
        set { incoming.withLock { $0.mask = newValue; $0.version += 1 } }
    }

    static func prepare(in context: isolated RenderContext) throws {
        _ = try context.program(named: "person_mask_pack", fragment: EmbeddedShaders.personMaskPackFsh)
        _ = try context.program(named: "person_mask_refine", fragment: EmbeddedShaders.personMaskRefineFsh)
        _ = try context.program(named: "background_weight", fragment: EmbeddedShaders.backgroundWeightFsh)
        // The blur's program depends on the frame's height (its radius); it compiles on the first frame.
    }

    /// The refined mask for `frame` (person in .r); nil while no mask has come.
    func refined(for frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame? {
        let (newest, version) = incoming.withLock { ($0.mask, $0.version) }
        guard let newest else { return nil }
        var state = try uploaded(newest, version: version, in: context)
        let packed = try context.renderPass(
            "person_mask_pack", fragment: EmbeddedShaders.personMaskPackFsh, inputs: [frame, state.uploaded],
            width: newest.width, height: newest.height, like: frame, format: .rgba8,
            uniforms: ["outputTexel": .vec2([1 / Float(newest.width), 1 / Float(newest.height)])])
        let (width, height) = Self.refinedSize(frame: (frame.width, frame.height), mask: (newest.width, newest.height))
        let previous = state.previous.flatMap { $0.width == width && $0.height == height ? $0 : nil }
        let refined = try context.renderPass(
            "person_mask_refine", fragment: EmbeddedShaders.personMaskRefineFsh,
            inputs: [frame, packed, previous ?? state.uploaded], width: width, height: height,
            like: frame, format: .r8,
            uniforms: ["maskSize": .vec2([Float(newest.width), Float(newest.height)]),
                       "rangeSigma": .float(Self.rangeSigma), "keep": .float(previous == nil ? 0 : Self.keep)])
        state.previous = refined
        rendered.withLock { $0 = state }
        return refined
    }

    /// The refined mask's size: half the frame's, at most 2.5 times the mask's (finer would not
    /// follow the frame's edges any closer: the guide is the frame at the mask's size); the
    /// frame's aspect.
    static func refinedSize(frame: (width: Int, height: Int), mask: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let scale = min(0.5, 2.5 * Double(max(mask.width, mask.height)) / Double(max(frame.width, frame.height)))
        return (max(1, Int((Double(frame.width) * scale).rounded())), max(1, Int((Double(frame.height) * scale).rounded())))
    }

    /// The render state with `mask` uploaded (once per version and context; the texture of the
    /// last upload is reused when the size is the same). Stored by `refined(for:in:)`.
    private func uploaded(_ mask: PersonMask, version: Int, in context: isolated RenderContext) throws -> Rendered {
        let kept = rendered.withLock { $0 }.flatMap { $0.context === context ? $0 : nil }
        if let kept, kept.version == version { return kept }
        let texture = try kept.flatMap { $0.uploaded.width == mask.width && $0.uploaded.height == mask.height ? $0.uploaded : nil }
            ?? context.makeFrame(width: mask.width, height: mask.height, format: .r8, timestamp: mask.time)
        try mask.values.withUnsafeBytes { try context.upload($0, bytesPerRow: mask.width, into: texture) }
        return Rendered(context: context, uploaded: texture, version: version, previous: kept?.previous)
    }

    /// The background beside the person, blurred: the frame shrunk to a quarter with each pixel
    /// weighted by how much it is background (`Shaders/background_weight.fsh`, half float: the
    /// weight divides), then blurred by `sigma` quarter pixels. rgb / a is the background's own
    /// colour, even right beside the person. 3 passes (`BackgroundBlur`, `BackgroundReplace`).
    static func blurredBackground(of frame: TextureFrame, mask: TextureFrame, sigma: Double,
                                  in context: isolated RenderContext) throws -> TextureFrame {
        let (width, height) = quarterSize(of: frame)
        let weighted = try context.renderPass(
            "background_weight", fragment: EmbeddedShaders.backgroundWeightFsh, inputs: [frame, mask],
            width: width, height: height, like: frame, format: .rgba16f,
            uniforms: ["outputTexel": .vec2([1 / Float(width), 1 / Float(height)]), "edge": .vec2(edge)])
        return try SeparableKernel.gaussian(sigma: max(0.5, sigma)).apply(to: weighted, in: context)
    }

    /// A quarter of the frame's size (rounded up), where the background filters blur.
    static func quarterSize(of frame: TextureFrame) -> (width: Int, height: Int) {
        (max(1, (frame.width + 3) / 4), max(1, (frame.height + 3) / 4))
    }
}
