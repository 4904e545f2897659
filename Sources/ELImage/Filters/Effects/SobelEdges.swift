/// Sobel edge detection on the BT.709 luma (`Shaders/sobel_edges.fsh`): the gradient magnitude
/// sqrt(gx² + gy²) of the 3x3 Sobel operators, times `strength`, as gray. Edges repeat the border.
public final class SobelEdges: ShaderFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// 0...10, default 1. Clamped; NaN means 1.
    public var strength: Float {
        get { floatUniform("strength", or: 1) }
        set { setUniform("strength", .float(FilterParameter.clamp(newValue, to: 0...10, neutral: 1))) }
    }

    public init(strength: Float = 1) {
        super.init(name: "sobel_edges", fragmentShader: EmbeddedShaders.sobelEdgesFsh)
        self.strength = strength
    }

    public override func frameUniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        ["texelSize": .vec2(SIMD2(1 / Float(input.width), 1 / Float(input.height)))]
    }
}
