/// A filter made of one `ColorPiece`: a node of its own, and a `ColorOperation` that a
/// `ColorChain` can fuse with its neighbours.
///
/// Alone, it runs the shader a one-piece `ColorChain` would, so fused and unfused results agree.
/// Subclasses expose typed properties that call `setPieceUniform(_:_:)`.
open class PointFilter: ShaderFilter, ColorOperation, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    public let colorPiece: ColorPiece

    /// - Parameter piece: the colour piece to run.
    public init(piece: ColorPiece) {
        colorPiece = piece
        super.init(name: ColorShader.programName(for: [piece]),
                   fragmentShader: ColorShader.fragmentSource(for: [piece]))
    }

    /// Sets the piece's uniform `name` (as declared without `PIECE_`) for every following frame.
    public func setPieceUniform(_ name: String, _ value: UniformValue) {
        setUniform(colorPiece.prefix(at: 0) + name, value)
    }

    public var colorUniforms: [String: UniformValue] {
        let prefix = colorPiece.prefix(at: 0)
        var values: [String: UniformValue] = [:]
        for (name, value) in uniformValues where name.hasPrefix(prefix) {
            values[String(name.dropFirst(prefix.count))] = value
        }
        return values
    }

    /// Textures the piece samples, by sampler name without `PIECE_`; the default has none.
    open func colorTextures(in context: isolated RenderContext) throws -> [String: TextureFrame] { [:] }

    open override func additionalTextures(in context: isolated RenderContext) throws -> [SamplerTexture] {
        let prefix = colorPiece.prefix(at: 0)
        return try colorTextures(in: context).sorted { $0.key < $1.key }
            .map { SamplerTexture(sampler: prefix + $0.key, frame: $0.value) }
    }
}
