/// A filter that renders each frame with one fragment shader (its `pass`): the colour filters,
/// blends, sharpening, edges, geometry. Conforming takes a `pass`, an `outputs` and, for the
/// uniforms, either `ParameterizedFilter` or `uniforms(forInput:outputSize:)`; the rest has defaults.
public protocol SinglePassFilter: ImageOutput, ImageInput, PreparableFilter {
    /// The shader and the inputs.
    var pass: ShaderPass { get }
    /// Every uniform for the frame about to be drawn from `input`.
    func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue]
    /// The size of the output for a given first input. Defaults to the input's size.
    func outputSize(forInput input: TextureFrame) -> (width: Int, height: Int)
    /// Textures the shader samples besides the graph's inputs (a lookup table, a mask), each with
    /// the sampler uniform it is bound to. Called on the render thread before every draw; the
    /// default has none.
    func additionalTextures(in context: isolated RenderContext) throws -> [SamplerTexture]
    /// Whether the pass is handed on as a recipe (`Picture`) rather than drawn: a sink that packs
    /// 8-bit 4:2:0 then runs it inside its pack (no RGBA frame is drawn, and each pixel the pack
    /// needs runs the shader: five for four pixels at MPEG-2 siting), and colour filters after it
    /// run in the same pass. The default, true, suits a pass of a few reads; a long neighbourhood
    /// pass draws its frame instead.
    var runsInsidePack: Bool { get }
    /// How the shader reads its input 0: at its own pixel or at texel centres, the colour of a
    /// recipe before it runs inside its pass (`InputReading`). The default: anywhere.
    var reads: InputReading { get }
    /// Whether every frame the pass draws is gray (R = G = B) whatever the input: the frames are
    /// marked `TextureFrame.isMonochrome`, so Y'CbCr sinks compute only Y' (inside the pack, the
    /// pass runs in its Y' pass). The default: what a `ColorOperation` says (`producesMonochrome`),
    /// else false.
    var drawsMonochrome: Bool { get }
}

extension SinglePassFilter {
    public var inputSlots: InputSlots { pass.inputSlots }

    /// Names the program in the context's cache and in error messages.
    public var programName: String { pass.programName }

    public func outputSize(forInput input: TextureFrame) -> (width: Int, height: Int) {
        (input.width, input.height)
    }

    public func additionalTextures(in context: isolated RenderContext) throws -> [SamplerTexture] { [] }

    public var runsInsidePack: Bool { true }

    public var reads: InputReading { .anywhere }

    public var drawsMonochrome: Bool { (self as? any ColorOperation)?.producesMonochrome ?? false }

    /// Compiles and links the filter's program in `context` now, instead of on the first frame, so
    /// that a shader error is thrown here (`ELImageError.shaderCompile` with the line) rather than
    /// reported through the context's error handler later.
    public func prepare(in context: isolated RenderContext) throws {
        try pass.prepare(in: context)
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        try receive(Picture(frame), at: index, in: context)
    }

    /// Hands on the pass as a recipe (`runsInsidePack`), which takes the colour of a recipe on
    /// input 0 into its shader when the pass reads at texel centres (`reads`); or draws it.
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        if let passing = self as? any PassesOnUnchanged, passing.passesOnUnchanged(width: picture.width, height: picture.height,
                                                                                           colorSpace: picture.colorSpace) {
            passing.passedOnUnchanged()
            deliver(picture, in: context)  // the output would be the input: no draw
            return
        }
        var before: Recipe?
        if index == 0, runsInsidePack, reads.runsColorOnReads, case .recipe(let recipe) = picture.content, recipe.stage == nil {
            before = recipe
        }
        let (ready, missing, skipped) = pass.inputsToDraw(after: try before?.first ?? picture.pixels(in: context), at: index)
        if let missing {
            context.report(ShaderPass.missingInputError(node: NodeFailure.name(of: self), slot: missing), from: self)
        }
        if let skipped { context.publish(.dropped(FrameDrop(node: NodeReference(self), count: 1, total: skipped))) }
        guard var inputs = ready, let first = inputs.first else { return }
        try pass.prepare(in: context)  // (a shader that does not compile is this node's failure)
        let size = outputSize(forInput: first)
        let extra = try additionalTextures(in: context)
        let uniforms = uniforms(forInput: first, outputSize: size)
        let stage = pass.stage(monochrome: drawsMonochrome)
        if let composed = before?.read(by: stage, others: Array(inputs.dropFirst()), extra: extra, width: size.width,
                                       height: size.height, uniforms: uniforms, in: context) {
            deliver(Picture(composed), in: context)
            return
        }
        if before != nil { inputs[0] = try picture.pixels(in: context) }
        let recipe = Recipe(stage: stage, first: inputs[0], others: Array(inputs.dropFirst()), extra: extra,
                            width: size.width, height: size.height, uniforms: uniforms)
        deliver(runsInsidePack ? Picture(recipe) : Picture(try recipe.render(in: context)), in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        if index == 0 { deliverEndOfStream(in: context) }
    }
}
