/// A two-input filter that lays input 1 (the top layer) over input 0 (the base) with a blend mode.
///
/// ```swift
/// let blend = BlendFilter(mode: .screen, opacity: 0.8)
/// camera --> blend          // input 0: base
/// overlay --> blend         // input 1: top layer, stretched to the base's size
/// ```
///
/// rgb = mix(base, B(base, top), top.a * opacity), where B is the mode's formula (W3C Compositing
/// and Blending); the output's alpha is source-over coverage. A frame on input 0 renders with the
/// latest frame from input 1 (one still picture serves every frame); until input 1 has delivered
/// one, input-0 frames are skipped and the first skip is reported to the context's error handler:
/// start the layer's source first.
public final class BlendFilter: SinglePassFilter, ParameterizedFilter {
    /// A blend mode: B(base, top) per channel.
    public enum Mode: String, Sendable, CaseIterable {
        /// Normal alpha blending: the top layer over the base (`Shaders/blend_alpha.fsh`).
        case alpha
        /// base * top, always darker (`Shaders/blend_multiply.fsh`).
        case multiply
        /// base + top - base * top, always lighter (`Shaders/blend_screen.fsh`).
        case screen
        /// Multiply where the base is dark, screen where it is light (`Shaders/blend_overlay.fsh`).
        case overlay
        /// Soft light, the W3C formula (`Shaders/blend_soft_light.fsh`).
        case softLight

        /// The program's cache name.
        var programName: String {
            switch self {
            case .alpha: "blend_alpha"
            case .multiply: "blend_multiply"
            case .screen: "blend_screen"
            case .overlay: "blend_overlay"
            case .softLight: "blend_soft_light"
            }
        }

        /// The mode's fragment shader; it samples the base as `inputImageTexture` and the top as
        /// `inputImageTexture2`.
        var fragmentShader: String {
            switch self {
            case .alpha: EmbeddedShaders.blendAlphaFsh
            case .multiply: EmbeddedShaders.blendMultiplyFsh
            case .screen: EmbeddedShaders.blendScreenFsh
            case .overlay: EmbeddedShaders.blendOverlayFsh
            case .softLight: EmbeddedShaders.blendSoftLightFsh
            }
        }
    }

    public struct Parameters: Sendable {
        /// 0...1: 0 shows the base only. Clamped; NaN means 1.
        @Uniform("opacity", in: 0...1) public var opacity: Float = 1
    }

    /// The blend mode.
    public let mode: Mode
    public let parameters = Parameters()
    public let pass: ShaderPass
    public let outputs = OutputTargets()

    /// Reads its input 0 at both inputs at the pixel it writes: the colour before it runs in its pass.
    public var reads: InputReading { .ownPixel }

    public init(mode: Mode, opacity: Float = 1) {
        self.mode = mode
        pass = ShaderPass(name: mode.programName, fragmentShader: mode.fragmentShader, inputCount: 2)
        self.opacity = opacity
    }
}

extension BlendFilter: FrameAccounting {
    /// One hop: the frames on input 0, those blended, and those skipped before the other input's first frame.
    public var frameHops: [FrameHop] { [pass.frameHop(named: "the blend (\(mode))")] }
}
