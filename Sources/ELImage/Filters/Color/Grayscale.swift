/// Converts colour to gray with the BT.709 luma weights, 0.2126 R + 0.7152 G + 0.0722 B
/// (`Shaders/color_grayscale.glsl`); alpha is kept.
public final class Grayscale: PointFilter {
    /// Grayscale has no settings.
    public struct Parameters: Sendable {}

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "grayscale", source: EmbeddedShaders.colorGrayscaleGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init() {
        pass = ShaderPass(colorPiece: colorPiece)
    }

    /// Gray output: Y'CbCr sinks pack only Y' (`TextureFrame.isMonochrome`).
    public var producesMonochrome: Bool { true }
}
