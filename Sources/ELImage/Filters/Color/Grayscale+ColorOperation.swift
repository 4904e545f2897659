/// `Grayscale` fuses into a `ColorChain` with the piece `Shaders/color_grayscale.glsl`, which
/// computes the same BT.709 luma as its own shader.
extension Grayscale: ColorOperation {
    public var colorPiece: ColorPiece {
        ColorPiece(builtIn: "grayscale", source: EmbeddedShaders.colorGrayscaleGlsl)
    }

    public var colorUniforms: [String: UniformValue] { [:] }
}
