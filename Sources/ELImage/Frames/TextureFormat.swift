import CGLES

/// The pixel format of a GPU texture.
public enum TextureFormat: Sendable, Hashable, CustomStringConvertible {
    /// 8-bit RGBA, what filters read and write.
    case rgba8
    /// One 8-bit channel (a luma plane, a mask).
    case r8
    /// Two 8-bit channels (an interleaved chroma plane).
    case rg8
    /// Half-float RGBA: pictures of 10- and 16-bit sources (the working format of their graph) and
    /// intermediate results that must keep more than 8 bits (the matched chroma filter's
    /// averages). Rendered to, sampled, never uploaded or read back as is: sinks pack them.
    case rgba16f

    /// Whether frames of this format hold an RGBA picture (8-bit or half float), what filters and
    /// sinks take.
    public var holdsPicture: Bool { self == .rgba8 || self == .rgba16f }

    public var bytesPerPixel: Int {
        switch self {
        case .rgba8: 4
        case .r8: 1
        case .rg8: 2
        case .rgba16f: 8
        }
    }

    var internalFormat: GLint {
        switch self {
        case .rgba8: GL_RGBA8
        case .r8: GL_R8
        case .rg8: GL_RG8
        case .rgba16f: GL_RGBA16F
        }
    }

    /// The `format` argument of `glTexSubImage2D`/`glReadPixels` for this texture.
    var pixelFormat: GLenum {
        switch self {
        case .rgba8: GLenum(GL_RGBA)
        case .r8: GLenum(GL_RED)
        case .rg8: GLenum(GL_RG)
        case .rgba16f: GLenum(GL_RGBA)
        }
    }

    public var description: String {
        switch self {
        case .rgba8: "RGBA8"
        case .r8: "R8"
        case .rg8: "RG8"
        case .rgba16f: "RGBA16F"
        }
    }
}

/// How a texture is sampled between texels.
public enum TextureFiltering: Sendable, Hashable {
    case linear, nearest

    var glValue: GLint { self == .linear ? GL_LINEAR : GL_NEAREST }
}

/// How a texture is sampled outside [0, 1].
public enum TextureWrap: Sendable, Hashable {
    case clampToEdge, `repeat`, mirroredRepeat

    var glValue: GLint {
        switch self {
        case .clampToEdge: GL_CLAMP_TO_EDGE
        case .repeat: GL_REPEAT
        case .mirroredRepeat: GL_MIRRORED_REPEAT
        }
    }
}

/// Everything that makes two textures interchangeable: a pooled texture is reused only for a
/// request with an equal key.
public struct TextureKey: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var format: TextureFormat
    public var filtering: TextureFiltering
    public var wrap: TextureWrap

    public init(width: Int, height: Int, format: TextureFormat = .rgba8,
                filtering: TextureFiltering = .linear, wrap: TextureWrap = .clampToEdge) {
        self.width = width
        self.height = height
        self.format = format
        self.filtering = filtering
        self.wrap = wrap
    }

    /// Bytes of texture memory (one mip level).
    public var byteCount: Int { width * height * format.bytesPerPixel }

    public var description: String { "\(width)x\(height) \(format)" }
}
