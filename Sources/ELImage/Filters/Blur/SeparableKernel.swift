import Foundation

/// A symmetric 1D kernel in the form `Shaders/separable_blur.fsh` runs: a centre weight and pairs
/// of linear-sampling taps.
///
/// Texels k and k + 1 on one side (k = 1, 3, 5, ...) with weights w(k) and w(k + 1) become one
/// bilinear sample at offset (k w(k) + (k + 1) w(k + 1)) / (w(k) + w(k + 1)) with weight
/// w(k) + w(k + 1): the same sum with half the texture reads.
struct SeparableKernel: Sendable, Equatable {
    /// The most tap pairs the shader takes.
    static let maximumTaps = 64

    var centerWeight: Float
    /// (offset in texels, weight) of each pair's side.
    var taps: [SIMD2<Float>]

    /// - Parameter weights: `weights[0]` for the centre texel, `weights[k]` for each texel at
    ///   distance k (both sides); they should sum to 1 counted that way.
    init(symmetricWeights weights: [Double]) {
        centerWeight = Float(weights.first ?? 1)
        var taps: [SIMD2<Float>] = []
        var k = 1
        while k < weights.count {
            let near = weights[k], far = k + 1 < weights.count ? weights[k + 1] : 0
            let sum = near + far
            if sum > 0 {
                taps.append(SIMD2(Float((Double(k) * near + Double(k + 1) * far) / sum), Float(sum)))
            }
            k += 2
        }
        self.taps = Array(taps.prefix(Self.maximumTaps))
    }

    /// A normalised Gaussian of standard deviation `sigma` texels, cut at ceil(3 sigma).
    static func gaussian(sigma: Double) -> SeparableKernel {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var weights = (0...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights[0] + 2 * weights.dropFirst().reduce(0, +)
        weights = weights.map { $0 / total }
        return SeparableKernel(symmetricWeights: weights)
    }

    /// A box of 2 radius + 1 texels.
    static func box(radius: Int) -> SeparableKernel {
        SeparableKernel(symmetricWeights: Array(repeating: 1 / Double(2 * radius + 1), count: radius + 1))
    }

    /// The uniforms for one pass along `step` (one texel in texture coordinates).
    func uniforms(step: SIMD2<Float>) -> [String: UniformValue] {
        var values: [String: UniformValue] = [
            "texelStep": .vec2(step), "centerWeight": .float(centerWeight), "tapCount": .int(Int32(taps.count)),
        ]
        for (index, tap) in taps.enumerated() { values["taps[\(index)]"] = .vec2(tap) }
        return values
    }

    /// Blurs `frame` horizontally, then vertically. (Its vertical pass is not run inside a sink's
    /// pack, `DeferredPass`: a loop of taps costs as much there, and a fifth more at MPEG-2 siting.)
    func apply(to frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let source = EmbeddedShaders.separableBlurFsh
        let horizontal = try context.renderPass(
            "separable_blur", fragment: source, inputs: [frame], width: frame.width, height: frame.height,
            like: frame, uniforms: uniforms(step: SIMD2(1 / Float(frame.width), 0)))
        return try context.renderPass(
            "separable_blur", fragment: source, inputs: [horizontal], width: frame.width, height: frame.height,
            like: frame, uniforms: uniforms(step: SIMD2(0, 1 / Float(frame.height))))
    }

    /// Compiles the blur program.
    static func prepare(in context: isolated RenderContext) throws {
        _ = try context.program(named: "separable_blur", fragment: EmbeddedShaders.separableBlurFsh)
    }
}
