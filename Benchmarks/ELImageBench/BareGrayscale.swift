import CGLES

/// The GL work of RawDataInput → Grayscale → RawDataOutput written directly against GLES 3, with
/// no framework: upload into a texture, one draw into a framebuffer, read back. It runs on the
/// same context and thread as the framework pipeline, so the difference is the framework's cost.
final class BareGrayscale {
    private var uploadTexture: GLuint = 0
    private var outputTexture: GLuint = 0
    private var framebuffer: GLuint = 0
    private var vertexArray: GLuint = 0
    private var program: GLuint = 0
    private let width: Int
    private let height: Int

    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        uploadTexture = Self.makeTexture(width: width, height: height)
        outputTexture = Self.makeTexture(width: width, height: height)
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), outputTexture, 0)
        glGenVertexArrays(1, &vertexArray)
        program = try Self.link(vertex: Self.vertexShader, fragment: Self.fragmentShader)
    }

    /// Deletes the GL objects; call on the render thread.
    func delete() {
        glDeleteTextures(1, &uploadTexture)
        glDeleteTextures(1, &outputTexture)
        glDeleteFramebuffers(1, &framebuffer)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteProgram(program)
    }

    /// One frame: upload `pixels` (tightly packed RGBA), draw, read back into `result`.
    func run(pixels: UnsafeRawBufferPointer, result: UnsafeMutableRawBufferPointer) {
        glBindTexture(GLenum(GL_TEXTURE_2D), uploadTexture)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(width), GLsizei(height),
                        GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), pixels.baseAddress)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glViewport(0, 0, GLsizei(width), GLsizei(height))
        glUseProgram(program)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), uploadTexture)
        glBindVertexArray(vertexArray)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), result.baseAddress)
    }

    private static func makeTexture(width: Int, height: Int) -> GLuint {
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(GL_RGBA8), GLsizei(width), GLsizei(height))
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
        return texture
    }

    struct BuildError: Error, CustomStringConvertible { let description: String }

    private static func link(vertex: String, fragment: String) throws -> GLuint {
        func compile(_ source: String, _ stage: Int32) throws -> GLuint {
            let shader = glCreateShader(GLenum(stage))
            source.withCString { text in
                var pointer: UnsafePointer<GLchar>? = text
                glShaderSource(shader, 1, &pointer, nil)
            }
            glCompileShader(shader)
            var ok: GLint = 0
            glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
            guard ok == GL_TRUE else { throw BuildError(description: "bare shader did not compile") }
            return shader
        }
        let program = glCreateProgram()
        glAttachShader(program, try compile(vertex, GL_VERTEX_SHADER))
        glAttachShader(program, try compile(fragment, GL_FRAGMENT_SHADER))
        glLinkProgram(program)
        var ok: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &ok)
        guard ok == GL_TRUE else { throw BuildError(description: "bare program did not link") }
        return program
    }

    private static let vertexShader = """
        #version 300 es
        out vec2 textureCoordinate;
        void main() {
            vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
            textureCoordinate = corner;
            gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
        }
        """

    private static let fragmentShader = """
        #version 300 es
        precision highp float;
        in vec2 textureCoordinate;
        uniform sampler2D inputImageTexture;
        out vec4 fragColor;
        void main() {
            vec4 color = texture(inputImageTexture, textureCoordinate);
            fragColor = vec4(vec3(dot(color.rgb, vec3(0.2126, 0.7152, 0.0722))), color.a);
        }
        """
}
