import Foundation

/// A symmetric 1D kernel, run as two passes (horizontal, then vertical) in one of two forms:
///
/// - **Exact taps** (`Shaders/separable_blur_taps.fsh`), for a radius up to `exactRadiusLimit`:
///   one `texelFetch` a texel with the kernel's own weights, the loop unrolled at compile time
///   (one program per radius). The cheapest form on a software rasterizer, where a bilinear read
///   costs two or more exact ones, and the exact sum everywhere.
/// - **Linear-sampling pairs** (`Shaders/separable_blur.fsh`), for wider kernels: texels k and
///   k + 1 on one side (k = 1, 3, 5, ...) with weights w(k) and w(k + 1) become one bilinear sample
///   at offset (k w(k) + (k + 1) w(k + 1)) / (w(k) + w(k + 1)) with weight w(k) + w(k + 1): half
///   the reads, each blended at the sampler's precision.
struct SeparableKernel: Sendable, Equatable {
    /// The most tap pairs the linear-sampling shader takes.
    static let maximumTaps = 64
    /// The widest radius run with exact taps (33 reads a pixel and pass).
    static let exactRadiusLimit = 16

    /// `weights[0]` for the centre texel, `weights[k]` for each texel at distance k.
    let weights: [Float]

    /// - Parameter weights: `weights[0]` for the centre texel, `weights[k]` for each texel at
    ///   distance k (both sides); they should sum to 1 counted that way.
    init(symmetricWeights weights: [Double]) {
        self.weights = (weights.isEmpty ? [1] : weights).map(Float.init)
    }

    /// Texels on each side of the centre.
    var radius: Int { weights.count - 1 }

    /// Whether the kernel runs with exact taps.
    var usesExactTaps: Bool { radius <= Self.exactRadiusLimit }

    /// Texture reads a pixel in each pass.
    var readsPerPixel: Int { usesExactTaps ? 1 + 2 * radius : 1 + 2 * linearTaps.count }

    /// (offset in texels, weight) of each linear-sampling pair's side.
    var linearTaps: [SIMD2<Float>] {
        var taps: [SIMD2<Float>] = []
        var k = 1
        while k < weights.count {
            let near = Double(weights[k]), far = k + 1 < weights.count ? Double(weights[k + 1]) : 0
            let sum = near + far
            if sum > 0 {
                taps.append(SIMD2(Float((Double(k) * near + Double(k + 1) * far) / sum), Float(sum)))
            }
            k += 2
        }
        return Array(taps.prefix(Self.maximumTaps))
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

    /// Blurs `frame` horizontally, then vertically. (Its vertical pass is not run inside a sink's
    /// pack as a recipe: with exact taps, 720p, that was 13 % cheaper into Y4M at centred
    /// siting, no cheaper into MP4, and runs the taps at five pixels for four at MPEG-2 siting.)
    func apply(to frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let program = self.program
        let horizontal = try context.renderPass(
            program.name, fragment: program.source, inputs: [frame], width: frame.width, height: frame.height,
            like: frame, uniforms: uniforms(horizontal: true, width: frame.width, height: frame.height))
        return try context.renderPass(
            program.name, fragment: program.source, inputs: [horizontal], width: frame.width, height: frame.height,
            like: frame, uniforms: uniforms(horizontal: false, width: frame.width, height: frame.height))
    }

    /// Compiles this kernel's program.
    func prepare(in context: isolated RenderContext) throws {
        let program = self.program
        _ = try context.program(named: program.name, fragment: program.source)
    }

    /// The program for this kernel: exact taps of its radius, or linear-sampling pairs.
    private var program: ShaderVariant {
        usesExactTaps
            ? ShaderVariant("separable_blur_taps", source: EmbeddedShaders.separableBlurTapsFsh, defines: [("RADIUS", radius)])
            : ShaderVariant("separable_blur", source: EmbeddedShaders.separableBlurFsh, defines: [])
    }

    /// The uniforms for one pass.
    private func uniforms(horizontal: Bool, width: Int, height: Int) -> [String: UniformValue] {
        if usesExactTaps {
            var values: [String: UniformValue] = ["direction": .ivec2(horizontal ? SIMD2(1, 0) : SIMD2(0, 1))]
            for (index, weight) in weights.enumerated() { values["weights[\(index)]"] = .float(weight) }
            return values
        }
        let step = horizontal ? SIMD2(1 / Float(width), 0) : SIMD2(0, 1 / Float(height))
        let taps = linearTaps
        var values: [String: UniformValue] = [
            "texelStep": .vec2(step), "centerWeight": .float(weights[0]), "tapCount": .int(Int32(taps.count)),
        ]
        for (index, tap) in taps.enumerated() { values["taps[\(index)]"] = .vec2(tap) }
        return values
    }
}
