
/// A filter made of one fragment shader: it renders each input frame into a new frame from the
/// pool and pushes it to its targets.
///
/// The shader samples `inputImageTexture` (input 0), `inputImageTexture2` (input 1), ... at
/// `textureCoordinate` and writes `fragColor`. Uniforms are set with `setUniform(_:_:)`, typically
/// from a subclass's typed properties. With several inputs, a frame on input 0 triggers rendering
/// with the latest frame of every other input; until each connected input has delivered one,
/// input-0 frames are skipped.
open class ShaderFilter: ImageOutput, ImageInput, @unchecked Sendable {
    public let inputSlots: InputSlots
    /// Names the program in the context's cache and in error messages.
    public let programName: String
    private let fragmentShader: String

    private struct State {
        var latest: [TextureFrame?]
        var uniforms: [String: UniformValue] = [:]
    }
    private let state: Locked<State>

    /// - Parameters:
    ///   - name: unique per shader source (the cache key of the compiled program).
    ///   - fragmentShader: GLSL ES 3.00 source.
    ///   - inputCount: how many input frames the shader samples.
    public init(name: String, fragmentShader: String, inputCount: Int = 1) {
        programName = name
        self.fragmentShader = fragmentShader
        inputSlots = InputSlots(count: inputCount)
        state = Locked(State(latest: Array(repeating: nil, count: max(1, inputCount))))
        super.init()
    }

    /// Sets uniform `name` for every following frame.
    public func setUniform(_ name: String, _ value: UniformValue) {
        state.withLock { $0.uniforms[name] = value }
    }

    /// The size of the output for a given first input. Defaults to the input's size.
    open func outputSize(forInput input: TextureFrame) -> (width: Int, height: Int) {
        (input.width, input.height)
    }

    /// The uniform values set so far with `setUniform(_:_:)`, by name.
    public var uniformValues: [String: UniformValue] {
        state.withLock { $0.uniforms }
    }

    /// Compiles and links the filter's program in `context` now, instead of on the first frame, so
    /// that a shader error is thrown here (`ELImageError.shaderCompile` with the line) rather than
    /// reported through the context's error handler later.
    public func prepare(in context: isolated RenderContext) throws {
        _ = try context.program(named: programName, fragment: fragmentShader)
    }

    /// Textures the shader samples besides the graph's inputs (a lookup table, a mask), each with
    /// the sampler uniform it is bound to. They go on the texture units after the inputs' units.
    /// Called on the render thread before every draw; the default has none.
    open func additionalTextures(in context: isolated RenderContext) throws -> [SamplerTexture] {
        []
    }

    /// Uniforms that depend on the frame being drawn (e.g. the size of one input texel), set after
    /// the values from `setUniform(_:_:)`. Called before every draw; the default has none.
    open func frameUniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        [:]
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        let ready: (inputs: [TextureFrame], uniforms: [String: UniformValue])? = state.withLock { state in
            guard state.latest.indices.contains(index) else { return nil }
            state.latest[index] = frame
            guard index == 0 else { return nil }
            var inputs: [TextureFrame] = []
            for (slot, latest) in state.latest.enumerated() {
                if let latest {
                    inputs.append(latest)
                } else if inputSlots.isConnected(slot) {
                    return nil
                }
            }
            state.latest[0] = nil
            return (inputs, state.uniforms)
        }
        guard let ready else { return }
        let size = outputSize(forInput: frame)
        let extra = try additionalTextures(in: context)
        let perFrame = frameUniforms(forInput: frame, outputSize: size)
        let output = try context.makeFrame(width: size.width, height: size.height, timestamp: frame.timestamp,
                                           colorSpace: frame.colorSpace, chromaLocation: frame.chromaLocation)
        let program = try context.program(named: programName, fragment: fragmentShader)
        try context.draw(program, into: output, inputs: ready.inputs + extra.map(\.frame)) { program in
            for (name, value) in ready.uniforms { program.set(value, for: name) }
            for (name, value) in perFrame { program.set(value, for: name) }
            for (offset, texture) in extra.enumerated() {
                program.setSampler(texture.sampler, unit: ready.inputs.count + offset)
            }
        }
        deliver(output, in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        if index == 0 { deliverEndOfStream(in: context) }
    }
}
