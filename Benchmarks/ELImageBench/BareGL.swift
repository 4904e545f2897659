import CGLES
import ELImage

/// Direct GLES 3 calls for the benchmark's bare loops: the same GL work as the framework, written
/// without it.
enum BareGL {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func program(vertex: String, fragment: String) throws -> GLuint {
        func compile(_ source: String, _ stage: Int32) throws -> GLuint {
            let shader = glCreateShader(GLenum(stage))
            source.withCString { text in
                var pointer: UnsafePointer<GLchar>? = text
                glShaderSource(shader, 1, &pointer, nil)
            }
            glCompileShader(shader)
            var ok: GLint = 0
            glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
            guard ok == GL_TRUE else { throw Failure(description: "bare shader did not compile") }
            return shader
        }
        let program = glCreateProgram()
        glAttachShader(program, try compile(vertex, GL_VERTEX_SHADER))
        glAttachShader(program, try compile(fragment, GL_FRAGMENT_SHADER))
        glLinkProgram(program)
        var ok: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &ok)
        guard ok == GL_TRUE else { throw Failure(description: "bare program did not link") }
        return program
    }

    static func texture(width: Int, height: Int, format: Int32, filter: Int32 = GL_LINEAR) -> GLuint {
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(format), GLsizei(width), GLsizei(height))
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), filter)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), filter)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
        return texture
    }

    static func framebuffer(for texture: GLuint) -> GLuint {
        var framebuffer: GLuint = 0
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture, 0)
        return framebuffer
    }

    static func uniform(_ program: GLuint, _ name: String) -> GLint { glGetUniformLocation(program, name) }

    /// A built-in shader's source, or a failure naming it.
    static func shader(_ name: String) throws -> String {
        guard let source = ShaderLibrary.source(named: name) else { throw Failure(description: "no shader \(name)") }
        return source
    }
}
