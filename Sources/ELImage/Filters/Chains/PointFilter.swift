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

    public func additionalTextures(in context: isolated RenderContext) throws -> [SamplerTexture] {
        let prefix = colorPiece.prefix(at: 0)
        return try colorTextures(in: context).sorted { $0.key < $1.key }
            .map { SamplerTexture(sampler: prefix + $0.key, frame: $0.value) }
    }
}
