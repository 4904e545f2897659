/// Multiplies R, G and B by 2^ev (`Shaders/color_exposure.glsl`).
public final class Exposure: PointFilter {
    public struct Parameters: Sendable {
        /// Exposure value in stops, -10...10; 0 leaves the picture unchanged. Clamped; NaN means 0.
        @Uniform("ev", in: -10...10) public var exposure: Float = 0
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "exposure", source: EmbeddedShaders.colorExposureGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    public init(_ exposure: Float = 0) {
        pass = ShaderPass(colorPiece: colorPiece)
        self.exposure = exposure
    }
}
