/// Converts colour to gray with the BT.709 luma weights (0.2126 R + 0.7152 G + 0.0722 B).
public final class Grayscale: ShaderFilter, @unchecked Sendable {
    public init() {
        super.init(name: "grayscale", fragmentShader: EmbeddedShaders.grayscaleFsh)
    }
}
