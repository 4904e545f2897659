/// Scales R, G and B about mid-gray: (c - 0.5) * contrast + 0.5 (`Shaders/color_contrast.glsl`).
public final class Contrast: PointFilter {
    public struct Parameters: Sendable {
        /// 0...4; 1 leaves the picture unchanged, 0 makes it mid-gray. Clamped; NaN means 1.
        @Uniform("contrast", in: 0...4) public var contrast: Float = 1
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "contrast", source: EmbeddedShaders.colorContrastGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init(_ contrast: Float = 1) {
        pass = ShaderPass(colorPiece: colorPiece)
        self.contrast = contrast
    }
}
