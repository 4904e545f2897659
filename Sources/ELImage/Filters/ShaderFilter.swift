/// A filter made of one fragment shader you write, with uniforms set by name: for custom effects.
/// The built-in filters declare their settings as typed `@Uniform` parameters instead.
///
/// ```swift
/// let tint = ShaderFilter(name: "tint", fragmentShader: source, reads: .ownPixel)
/// tint.setUniform("amount", .float(0.3))
/// ```
///
/// Say how the shader reads its input 0 (`reads`): one that reads only at the pixel it writes, or
/// only whole texels, takes the colour filters before it into its own pass, as the built-in
/// filters that read so do (`camera --> saturation --> tint --> encoder` draws once, in the
/// encoder's pack).
public final class ShaderFilter: SinglePassFilter {
    public let pass: ShaderPass
    public let outputs = OutputTargets()
    /// How the shader reads its input 0.
    public let reads: InputReading
    private let values = Locked<[String: UniformValue]>([:])

    /// - Parameters:
    ///   - name: unique per shader source (the cache key of the compiled program).
    ///   - fragmentShader: GLSL ES 3.00 source; see `ShaderPass` for the names it reads and writes.
    ///   - inputCount: how many input frames the shader samples.
    ///   - reads: how the shader reads its input 0: `.ownPixel` or `.texelCentres` when it does
    ///     (then colour before it runs in its pass); `.anywhere`, the default, otherwise.
    public init(name: String, fragmentShader: String, inputCount: Int = 1, reads: InputReading = .anywhere) {
        pass = ShaderPass(name: name, fragmentShader: fragmentShader, inputCount: inputCount)
        self.reads = reads
    }

    /// Sets uniform `name` for every following frame.
    public func setUniform(_ name: String, _ value: UniformValue) {
        values.withLock { $0[name] = value }
    }

    /// The uniform values set so far with `setUniform(_:_:)`, by name.
    public var uniformValues: [String: UniformValue] {
        values.withLock { $0 }
    }

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        uniformValues
    }
}

extension ShaderFilter: FrameAccounting {
    /// One hop: the frames on input 0, those drawn, and those skipped before every other input's
    /// first frame.
    public var frameHops: [FrameHop] { [pass.frameHop(named: "the filter \(pass.programName)")] }
}
