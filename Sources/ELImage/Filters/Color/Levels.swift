/// Photoshop-style levels on R, G and B (`Shaders/color_levels.glsl`): input black and white
/// points, a mid-tone gamma, and output black and white points.
///
/// out = outputBlack + (outputWhite - outputBlack) * t^(1 / gamma), with
/// t = clamp((c - inputBlack) / (inputWhite - inputBlack), 0, 1).
public final class Levels: PointFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// 0...1, default 0. Clamped; NaN means the default. When `inputWhite` is not above
    /// `inputBlack`, the input range is taken as one level (1/255) wide.
    public var inputBlack: Float {
        get { pieceFloat("inputBlack", or: 0) }
        set { setPieceFloat("inputBlack", newValue, in: 0...1, neutral: 0) }
    }

    /// 0...1, default 1. Clamped; NaN means the default.
    public var inputWhite: Float {
        get { pieceFloat("inputWhite", or: 1) }
        set { setPieceFloat("inputWhite", newValue, in: 0...1, neutral: 1) }
    }

    /// Mid-tone gamma 0.1...10, default 1; above 1 brightens the mid-tones. Clamped; NaN means 1.
    public var gamma: Float {
        get { pieceFloat("gamma", or: 1) }
        set { setPieceFloat("gamma", newValue, in: 0.1...10, neutral: 1) }
    }

    /// 0...1, default 0. Clamped; NaN means the default.
    public var outputBlack: Float {
        get { pieceFloat("outputBlack", or: 0) }
        set { setPieceFloat("outputBlack", newValue, in: 0...1, neutral: 0) }
    }

    /// 0...1, default 1. Clamped; NaN means the default.
    public var outputWhite: Float {
        get { pieceFloat("outputWhite", or: 1) }
        set { setPieceFloat("outputWhite", newValue, in: 0...1, neutral: 1) }
    }

    public init(inputBlack: Float = 0, inputWhite: Float = 1, gamma: Float = 1,
                outputBlack: Float = 0, outputWhite: Float = 1) {
        super.init(piece: ColorPiece(builtIn: "levels", source: EmbeddedShaders.colorLevelsGlsl))
        self.inputBlack = inputBlack
        self.inputWhite = inputWhite
        self.gamma = gamma
        self.outputBlack = outputBlack
        self.outputWhite = outputWhite
    }
}
