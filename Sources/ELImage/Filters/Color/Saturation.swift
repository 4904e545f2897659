/// Scales each colour's distance from its BT.709 luma (`Shaders/color_saturation.glsl`).
public final class Saturation: PointFilter {
    public struct Parameters: Sendable {
        /// 0...4; 1 leaves the picture unchanged, 0 gives gray. Clamped; NaN means 1.
        @Uniform("saturation", in: 0...4) public var saturation: Float = 1
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "saturation", source: EmbeddedShaders.colorSaturationGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init(_ saturation: Float = 1) {
        pass = ShaderPass(colorPiece: colorPiece)
        self.saturation = saturation
    }
}
