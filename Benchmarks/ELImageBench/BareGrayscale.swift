import CGLES
import ELImage

/// The GL work of RawDataInput → Grayscale → RawDataOutput written directly against GLES 3 with the
/// same shaders: upload into a texture, one draw into a framebuffer, read back. It runs on the same
/// context and thread as the framework pipeline, so the difference is the framework's cost.
final class BareGrayscale {
    private let uploadTexture: GLuint, outputTexture: GLuint, framebuffer: GLuint, program: GLuint
    private var vertexArray: GLuint = 0
    private let width: Int, height: Int

    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        uploadTexture = BareGL.texture(width: width, height: height, format: GL_RGBA8)
        outputTexture = BareGL.texture(width: width, height: height, format: GL_RGBA8)
        framebuffer = BareGL.framebuffer(for: outputTexture)
        program = try BareGL.program(vertex: try BareGL.shader("fullscreen.vsh"), fragment: Grayscale().pass.fragmentShader)
        glGenVertexArrays(1, &vertexArray)
    }

    /// Deletes the GL objects; call on the render thread.
    func delete() {
        var textures = [uploadTexture, outputTexture], framebuffer = self.framebuffer
        glDeleteTextures(2, &textures)
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
        glUniform1i(BareGL.uniform(program, "inputImageTexture"), 0)
        glBindVertexArray(vertexArray)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), result.baseAddress)
    }
}
