/// A filter made of one `ColorPiece`: a node of its own, and a `ColorOperation` that a
/// `ColorChain` can fuse with its neighbours.
///
/// Alone, it runs the shader a one-piece `ColorChain` would (`ShaderPass(colorPiece:)`), so fused
/// and unfused results agree. Its settings are the `@Uniform` properties of its `Parameters`,
/// named as the piece declares them without `PIECE_`:
///
/// ```swift
/// final class Fade: PointFilter {
///     struct Parameters: Sendable {
///         @Uniform("amount", in: 0...1) var amount: Float = 0   // `uniform float PIECE_amount;`
///     }
///     let parameters = Parameters()
///     let colorPiece: ColorPiece
///     let pass: ShaderPass
///     let outputs = OutputTargets()
///
///     init(source: String) throws {
///         colorPiece = try ColorPiece(name: "fade", source: source)
///         pass = ShaderPass(colorPiece: colorPiece)
///     }
/// }
/// ```
public protocol PointFilter: SinglePassFilter, ColorOperation, ParameterizedFilter {}

extension PointFilter {
    public var colorUniforms: [String: UniformValue] { parameterUniforms }

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        let prefix = colorPiece.prefix(at: 0)
        var values: [String: UniformValue] = [:]
        for (name, value) in colorUniforms { values[prefix + name] = value }
        return values
    }

    /// Adds the filter's piece to the recipe it gets (or makes one over the frame it gets): drawn
    /// where the picture is needed, in one pass with the colour and stage around it.
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        try pass.prepare(in: context)  // (a piece that does not compile is this node's failure)
        try deliver(Recipe.coloring(picture, with: [self], in: context), in: context)
    }

    public func additionalTextures(in context: isolated RenderContext) throws -> [SamplerTexture] {
        let prefix = colorPiece.prefix(at: 0)
        return try colorTextures(in: context).sorted { $0.key < $1.key }
            .map { SamplerTexture(sampler: prefix + $0.key, frame: $0.value) }
    }
}
