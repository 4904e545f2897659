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
    /// Whether the pass may run inside the pack of a sink that packs 8-bit 4:2:0 when that sink is
    /// the filter's one target (`DeferredPass`): no RGBA frame is drawn, and each pixel the pack
    /// needs runs the shader (five for four pixels at MPEG-2 siting). The default, true, suits a
    /// pass of a few reads; a long neighbourhood pass draws its frame instead.
    var runsInsidePack: Bool { get }
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

    public var drawsMonochrome: Bool { (self as? any ColorOperation)?.producesMonochrome ?? false }

    /// Compiles and links the filter's program in `context` now, instead of on the first frame, so
    /// that a shader error is thrown here (`ELImageError.shaderCompile` with the line) rather than
    /// reported through the context's error handler later.
    public func prepare(in context: isolated RenderContext) throws {
        try pass.prepare(in: context)
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        if let passing = self as? any PassesOnUnchanged, passing.passesOnUnchanged(width: frame.width, height: frame.height,
                                                                                           colorSpace: frame.colorSpace) {
            deliver(frame, in: context)  // the output would be the input: no draw
            return
        }
        let (ready, missing) = pass.inputsToDraw(after: frame, at: index)
        if let missing {
            context.report(ShaderPass.missingInputError(node: NodeFailure.name(of: self), slot: missing), from: self)
        }
        guard let inputs = ready else { return }
        let size = outputSize(forInput: frame)
        let extra = try additionalTextures(in: context)
        let uniforms = uniforms(forInput: frame, outputSize: size)
        let pass = try pass.described(inputs, extra: extra, size: size, uniforms: uniforms, monochrome: drawsMonochrome)
        // Into a sink that packs 4:2:0 (and only observers beside it): the draw runs inside the
        // sink's pack (a gray frame's: its Y' pass).
        if runsInsidePack, let target = outputs.deferringSink() {
            target.deliver(pass, in: context)
            return
        }
        let output = try pass.render(in: context)  // (marked gray when it is)
        deliver(output, in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        if index == 0 { deliverEndOfStream(in: context) }
    }
}
