import CGLES

/// What a `RenderContext` got from the driver.
public struct RenderContextInfo: Sendable, CustomStringConvertible {
    /// The EGL platform the display was opened on.
    public let platform: EGLPlatform
    /// The render node, EGL device or "Mesa surfaceless".
    public let deviceDescription: String
    public let vendor: String
    public let renderer: String
    /// `GL_VERSION`, e.g. "OpenGL ES 3.2 Mesa 22.3.6".
    public let version: String
    public let shadingLanguageVersion: String
    public let maximumTextureSize: Int
    public let extensions: Set<String>

    /// True for CPU renderers (llvmpipe, softpipe, SwiftShader).
    public var isSoftwareRenderer: Bool {
        ["llvmpipe", "softpipe", "swiftshader"].contains { renderer.lowercased().contains($0) }
    }

    /// Reads the current context's strings; call on the thread where the context is current.
    static func queryCurrent(platform: EGLPlatform, device: String) -> RenderContextInfo {
        func string(_ name: Int32) -> String {
            glGetString(GLenum(name)).map { String(cString: $0) } ?? "unknown"
        }
        var size: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &size)
        var count: GLint = 0
        glGetIntegerv(GLenum(GL_NUM_EXTENSIONS), &count)
        let extensions = (0..<max(0, count)).compactMap { index in
            glGetStringi(GLenum(GL_EXTENSIONS), GLuint(index)).map { String(cString: $0) }
        }
        return RenderContextInfo(
            platform: platform, deviceDescription: device,
            vendor: string(GL_VENDOR), renderer: string(GL_RENDERER), version: string(GL_VERSION),
            shadingLanguageVersion: string(GL_SHADING_LANGUAGE_VERSION),
            maximumTextureSize: Int(size), extensions: Set(extensions))
    }

    public var description: String {
        "\(renderer) (\(vendor)), \(version), EGL platform \(platform) on \(deviceDescription), "
            + "max texture \(maximumTextureSize), \(extensions.count) extensions"
    }
}
