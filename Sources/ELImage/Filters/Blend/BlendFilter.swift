/// A two-input filter that lays input 1 (the top layer) over input 0 (the base) with a blend mode.
///
/// ```swift
/// camera --> blend          // input 0: base
/// overlay --> blend         // input 1: top layer, stretched to the base's size
/// ```
///
/// rgb = mix(base, B(base, top), top.a * opacity), where B is the mode's formula (W3C Compositing
/// and Blending); the output's alpha is source-over coverage. A frame on input 0 renders with the
/// latest frame from input 1.
open class BlendFilter: ShaderFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    /// 0...1: 0 shows the base only. Clamped; NaN means 1.
    public var opacity: Float {
        get { floatUniform("opacity", or: 1) }
        set { setUniform("opacity", .float(FilterParameter.clamp(newValue, to: 0...1, neutral: 1))) }
    }

    /// - Parameters:
    ///   - name: the program's cache name.
    ///   - fragmentShader: samples the base as `inputImageTexture`, the top as `inputImageTexture2`.
    public init(name: String, fragmentShader: String, opacity: Float) {
        super.init(name: name, fragmentShader: fragmentShader, inputCount: 2)
        self.opacity = opacity
    }
}

/// Normal alpha blending: the top layer over the base (`Shaders/blend_alpha.fsh`).
public final class AlphaBlend: BlendFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    public init(opacity: Float = 1) {
        super.init(name: "blend_alpha", fragmentShader: EmbeddedShaders.blendAlphaFsh, opacity: opacity)
    }
}

/// Multiply: base * top, always darker (`Shaders/blend_multiply.fsh`).
public final class MultiplyBlend: BlendFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    public init(opacity: Float = 1) {
        super.init(name: "blend_multiply", fragmentShader: EmbeddedShaders.blendMultiplyFsh, opacity: opacity)
    }
}

/// Screen: base + top - base * top, always lighter (`Shaders/blend_screen.fsh`).
public final class ScreenBlend: BlendFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    public init(opacity: Float = 1) {
        super.init(name: "blend_screen", fragmentShader: EmbeddedShaders.blendScreenFsh, opacity: opacity)
    }
}

/// Overlay: multiply where the base is dark, screen where it is light (`Shaders/blend_overlay.fsh`).
public final class OverlayBlend: BlendFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    public init(opacity: Float = 1) {
        super.init(name: "blend_overlay", fragmentShader: EmbeddedShaders.blendOverlayFsh, opacity: opacity)
    }
}

/// Soft light, the W3C formula (`Shaders/blend_soft_light.fsh`).
public final class SoftLightBlend: BlendFilter, @unchecked Sendable {
    // @unchecked Sendable: settings live in ShaderFilter's lock-guarded uniform storage.
    public init(opacity: Float = 1) {
        super.init(name: "blend_soft_light", fragmentShader: EmbeddedShaders.blendSoftLightFsh, opacity: opacity)
    }
}
