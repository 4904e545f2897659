/// A texture bound to a named sampler uniform for one draw, besides a filter's graph inputs
/// (e.g. a lookup table).
public struct SamplerTexture: Sendable {
    /// The `sampler2D` uniform's name in the shader.
    public let sampler: String
    public let frame: TextureFrame

    public init(sampler: String, frame: TextureFrame) {
        self.sampler = sampler
        self.frame = frame
    }
}
