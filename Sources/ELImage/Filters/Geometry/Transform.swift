import Foundation

/// Scales, rotates, flips and moves each frame about its centre (`Shaders/transform.fsh`), with
/// bilinear sampling; the uncovered area shows `backgroundColor`.
///
/// The input's centre goes to the output's centre plus `translation`. In between, the picture is
/// flipped, scaled, then rotated by `rotation` radians, counter-clockwise as seen on screen.
/// Rotating by π/2 with `outputSize` set to the input's height x width turns a picture exactly.
public final class Transform: SinglePassFilter {
    /// The transform's settings.
    public struct Settings: Sendable, Equatable {
        /// Scale factors along x and y; magnitudes below 0.001 are raised to 0.001, NaN means 1.
        public var scale: SIMD2<Float> = SIMD2(1, 1)
        /// Radians, counter-clockwise on screen. Non-finite values mean 0.
        public var rotation: Float = 0
        /// Pixels, x right and y down. Non-finite values mean 0.
        public var translation: SIMD2<Float> = .zero
        public var flipHorizontal = false
        public var flipVertical = false
        /// RGBA in 0...1 where no input pixel lands.
        public var backgroundColor: SIMD4<Float> = SIMD4(0, 0, 0, 1)
        /// The output's size; `nil` keeps the input's size.
        public var outputWidth: Int?
        public var outputHeight: Int?

        public init() {}
    }

    public let pass = ShaderPass(name: "transform", fragmentShader: EmbeddedShaders.transformFsh)
    public let outputs = OutputTargets()
    private let state: Locked<Settings>

    /// The current settings; changes apply from the next frame.
    public var settings: Settings {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    public init(_ settings: Settings = Settings()) {
        state = Locked(settings)
    }

    public func outputSize(forInput input: TextureFrame) -> (width: Int, height: Int) {
        let settings = self.settings
        return (max(1, settings.outputWidth ?? input.width), max(1, settings.outputHeight ?? input.height))
    }

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        let settings = self.settings
        func sanitized(_ scale: Float) -> Float {
            guard !scale.isNaN else { return 1 }
            let magnitude = min(max(abs(scale), 0.001), 1e6)
            return scale < 0 ? -magnitude : magnitude
        }
        let scaleX = sanitized(settings.scale.x) * (settings.flipHorizontal ? -1 : 1)
        let scaleY = sanitized(settings.scale.y) * (settings.flipVertical ? -1 : 1)
        let angle = Double(settings.rotation.isFinite ? settings.rotation : 0)
        let translation = SIMD2(settings.translation.x.isFinite ? Double(settings.translation.x) : 0,
                                settings.translation.y.isFinite ? Double(settings.translation.y) : 0)
        // Forward, for a point q of the input: p = outCentre + t + R (S (q - inCentre)), with R the
        // on-screen counter-clockwise rotation in y-down coordinates [[c, s], [-s, c]].
        // Inverse: q = inCentre + S⁻¹ Rᵀ (p - outCentre - t).
        let (c, s) = (cos(angle), sin(angle))
        let inverseScale = SIMD2(1 / Double(scaleX), 1 / Double(scaleY))
        let m00 = inverseScale.x * c, m01 = inverseScale.x * -s
        let m10 = inverseScale.y * s, m11 = inverseScale.y * c
        let shift = SIMD2(Double(outputSize.width) / 2, Double(outputSize.height) / 2) + translation
        let inputCentre = SIMD2(Double(input.width) / 2, Double(input.height) / 2)
        let tx = inputCentre.x - (m00 * shift.x + m01 * shift.y)
        let ty = inputCentre.y - (m10 * shift.x + m11 * shift.y)
        let columns: [Double] = [m00, m10, 0, m01, m11, 0, tx, ty, 1]
        return [
            "inverseTransform": .mat3(columns.map { Float($0) }),
            "inputSize": .vec2(SIMD2(Float(input.width), Float(input.height))),
            "outputSize": .vec2(SIMD2(Float(outputSize.width), Float(outputSize.height))),
            "backgroundColor": .vec4(settings.backgroundColor),
        ]
    }
}
