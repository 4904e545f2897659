/// Unsharp masking with a 3x3 binomial blur (`Shaders/sharpen.fsh`):
/// colour + amount * (colour - blurred), blurred = [1 2 1] x [1 2 1] / 16 with repeated edges.
public final class Sharpen: ShaderFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// 0...4; 0 leaves the picture unchanged. Clamped; NaN means 0.
    public var amount: Float {
        get { floatUniform("amount", or: 0) }
        set { setUniform("amount", .float(FilterParameter.clamp(newValue, to: 0...4, neutral: 0))) }
    }

    public init(amount: Float = 0.5) {
        super.init(name: "sharpen", fragmentShader: EmbeddedShaders.sharpenFsh)
        self.amount = amount
    }
}
