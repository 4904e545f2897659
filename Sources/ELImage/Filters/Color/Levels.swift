/// Photoshop-style levels on R, G and B (`Shaders/color_levels.glsl`): input black and white
/// points, a mid-tone gamma, and output black and white points.
///
/// out = outputBlack + (outputWhite - outputBlack) * t^(1 / gamma), with
/// t = clamp((c - inputBlack) / (inputWhite - inputBlack), 0, 1).
public final class Levels: PointFilter {
    public struct Parameters: Sendable {
        /// 0...1, default 0. Clamped; NaN means the default. When `inputWhite` is not above
        /// `inputBlack`, the input range is taken as one level (1/255) wide.
        @Uniform("inputBlack", in: 0...1) public var inputBlack: Float = 0
        /// 0...1, default 1. Clamped; NaN means the default.
        @Uniform("inputWhite", in: 0...1) public var inputWhite: Float = 1
        /// Mid-tone gamma 0.1...10, default 1; above 1 brightens the mid-tones. Clamped; NaN means 1.
        @Uniform("gamma", in: 0.1...10) public var gamma: Float = 1
        /// 0...1, default 0. Clamped; NaN means the default.
        @Uniform("outputBlack", in: 0...1) public var outputBlack: Float = 0
        /// 0...1, default 1. Clamped; NaN means the default.
        @Uniform("outputWhite", in: 0...1) public var outputWhite: Float = 1
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "levels", source: EmbeddedShaders.colorLevelsGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init(inputBlack: Float = 0, inputWhite: Float = 1, gamma: Float = 1,
                outputBlack: Float = 0, outputWhite: Float = 1) {
        pass = ShaderPass(colorPiece: colorPiece)
        self.inputBlack = inputBlack
        self.inputWhite = inputWhite
        self.gamma = gamma
        self.outputBlack = outputBlack
        self.outputWhite = outputWhite
    }
}
