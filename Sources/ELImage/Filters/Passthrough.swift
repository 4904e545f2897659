/// Hands its input on, or scales it to another size (bilinear): it draws only when the size
/// changes (`PassesOnUnchanged`).
public final class Passthrough: SinglePassFilter, PassesOnUnchanged {
    public let pass = ShaderPass(name: "passthrough", fragmentShader: EmbeddedShaders.passthroughFsh)
    public let outputs = OutputTargets()
    private let size: Locked<(width: Int, height: Int)?>

    /// - Parameter outputSize: the size to scale to; `nil` keeps the input's size.
    public init(outputSize: (width: Int, height: Int)? = nil) {
        size = Locked(outputSize)
    }

    /// The size to scale to; `nil` keeps the input's size.
    public var outputSize: (width: Int, height: Int)? {
        get { size.withLock { $0 } }
        set { size.withLock { $0 = newValue } }
    }

    public func outputSize(forInput input: TextureFrame) -> (width: Int, height: Int) {
        outputSize ?? (input.width, input.height)
    }

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        [:]
    }

    public func passesOnUnchanged(width: Int, height: Int, colorSpace: ColorSpace) -> Bool {
        outputSize.map { $0 == (width, height) } ?? true
    }
}
