/// A per-pixel colour operation: a `ColorPiece` plus the current values of its uniforms.
///
/// Each colour filter (`Brightness`, `Contrast`, ..., `LookupTable`, and `Grayscale`) is a
/// `ColorOperation` and also a node of its own. Consecutive operations can run as one shader pass
/// with `ColorChain` (or a `FilterGroup`, which fuses them automatically), with the same result as
/// the separate nodes up to 8-bit rounding between passes.
public protocol ColorOperation: AnyObject, Sendable {
    /// The operation's GLSL piece.
    var colorPiece: ColorPiece { get }
    /// The piece's uniform values now, by the names the piece declares without `PIECE_`
    /// (e.g. "amount" for `uniform float PIECE_amount`).
    var colorUniforms: [String: UniformValue] { get }
    /// Textures the piece samples, by sampler name without `PIECE_`. Called on the render thread
    /// for every frame.
    func colorTextures(in context: isolated RenderContext) throws -> [String: TextureFrame]
    /// Whether every output pixel is gray whatever the input (grayscale): the output frames are
    /// marked `TextureFrame.isMonochrome`, so Y'CbCr sinks compute only Y'. Defaults to false.
    var producesMonochrome: Bool { get }
}

extension ColorOperation {
    public func colorTextures(in context: isolated RenderContext) throws -> [String: TextureFrame] { [:] }
    public var producesMonochrome: Bool { false }
}
