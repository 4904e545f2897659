import CGLES
import ELImage

/// The GL work of `RenderContext.makeFrame(from:)` for an I420 picture, written directly against
/// GLES 3 with the same shader: three plane uploads and one conversion draw.
final class BareI420Upload {
    private let width: Int, height: Int
    private let planes: [GLuint]
    private let output: GLuint, framebuffer: GLuint, program: GLuint
    private var vertexArray: GLuint = 0
    private let conversion = YCbCrConversion.toRGB(.bt709)

    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        let chroma = ((width + 1) / 2, (height + 1) / 2)
        planes = [BareGL.texture(width: width, height: height, format: GL_R8),
                  BareGL.texture(width: chroma.0, height: chroma.1, format: GL_R8),
                  BareGL.texture(width: chroma.0, height: chroma.1, format: GL_R8)]
        output = BareGL.texture(width: width, height: height, format: GL_RGBA8)
        framebuffer = BareGL.framebuffer(for: output)
        let variant = ShaderVariant("yuv_to_rgba", source: try BareGL.shader("yuv_to_rgba.fsh"), defines: [("PLANE_LAYOUT", 0)])
        program = try BareGL.program(vertex: try BareGL.shader("oriented.vsh"), fragment: variant.source)
        glGenVertexArrays(1, &vertexArray)
    }

    func run(_ buffer: PixelBuffer) {
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        buffer.data.withUnsafeBytes { bytes in
            for (index, texture) in planes.enumerated() {
                let shape = buffer.shape(ofPlane: index)
                glBindTexture(GLenum(GL_TEXTURE_2D), texture)
                glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(buffer.planes[index].bytesPerRow))
                glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(shape.width), GLsizei(shape.height),
                                GLenum(GL_RED), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress.map { $0 + buffer.planes[index].offset })
            }
        }
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glViewport(0, 0, GLsizei(width), GLsizei(height))
        glUseProgram(program)
        for (unit, texture) in planes.enumerated() {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
            glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        }
        glUniform1i(BareGL.uniform(program, "inputImageTexture"), 0)
        glUniform1i(BareGL.uniform(program, "inputImageTexture2"), 1)
        glUniform1i(BareGL.uniform(program, "inputImageTexture3"), 2)
        glUniformMatrix3fv(BareGL.uniform(program, "textureTransform"), 1, GLboolean(GL_FALSE), [1, 0, 0, 0, 1, 0, 0, 0, 1])
        glUniform2f(BareGL.uniform(program, "lumaSize"), Float(width), Float(height))
        glUniform2f(BareGL.uniform(program, "chromaSize"), Float((width + 1) / 2), Float((height + 1) / 2))
        glUniform2f(BareGL.uniform(program, "chromaScale"), 0.5, 0.5)
        glUniform2f(BareGL.uniform(program, "chromaSiting"), 0.25, 0)
        glUniformMatrix3fv(BareGL.uniform(program, "colorMatrix"), 1, GLboolean(GL_FALSE), conversion.matrix)
        glUniform3f(BareGL.uniform(program, "colorOffset"), conversion.offset.x, conversion.offset.y, conversion.offset.z)
        glBindVertexArray(vertexArray)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
    }

    func delete() {
        var names = planes + [output]
        glDeleteTextures(GLsizei(names.count), &names)
        var framebuffer = self.framebuffer
        glDeleteFramebuffers(1, &framebuffer)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteProgram(program)
    }
}

/// The GL work of `RenderContext.readPixels(of:into:)` to I420, written directly against GLES 3 with
/// the same shader: one packing draw per plane and one readback each.
final class BareI420Readback {
    private let width: Int, height: Int
    private let targets: [(texture: GLuint, framebuffer: GLuint, width: Int, height: Int, program: GLuint)]
    private var vertexArray: GLuint = 0
    private let conversion = YCbCrConversion.fromRGB(.bt709)

    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        let chroma = ((width + 1) / 2, (height + 1) / 2)
        let sizes = [((width + 3) / 4, height), ((chroma.0 + 3) / 4, chroma.1), ((chroma.0 + 3) / 4, chroma.1)]
        let source = try BareGL.shader("rgba_to_yuv.fsh"), vertex = try BareGL.shader("fullscreen.vsh")
        targets = try sizes.enumerated().map { kind, size in
            let texture = BareGL.texture(width: size.0, height: size.1, format: GL_RGBA8, filter: GL_NEAREST)
            let variant = ShaderVariant("rgba_to_yuv", source: source, defines: [
                ("PLANE_KIND", kind), ("CHROMA_DIVISOR_X", 2), ("CHROMA_DIVISOR_Y", 2), ("CENTRED_CHROMA", 0)])
            return (texture, BareGL.framebuffer(for: texture), size.0, size.1,
                    try BareGL.program(vertex: vertex, fragment: variant.source))
        }
        glGenVertexArrays(1, &vertexArray)
    }

    /// Converts `texture` (RGBA, width x height) and reads the planes into `buffer` (tight I420).
    func run(texture: GLuint, into buffer: inout PixelBuffer) {
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glBindVertexArray(vertexArray)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        let planes = buffer.planes
        buffer.withUnsafeMutableData { bytes in
            for (index, target) in targets.enumerated() {
                let program = target.program
                glUseProgram(program)
                glUniform1i(BareGL.uniform(program, "inputImageTexture"), 0)
                glUniform2f(BareGL.uniform(program, "pictureSize"), Float(width), Float(height))
                glUniform1i(BareGL.uniform(program, "swapChroma"), 0)
                glUniformMatrix3fv(BareGL.uniform(program, "colorMatrix"), 1, GLboolean(GL_FALSE), conversion.matrix)
                glUniform3f(BareGL.uniform(program, "colorOffset"), conversion.offset.x, conversion.offset.y, conversion.offset.z)
                glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
                glViewport(0, 0, GLsizei(target.width), GLsizei(target.height))
                glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
                glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), GLint(planes[index].bytesPerRow / 4))
                glReadPixels(0, 0, GLsizei(target.width), GLsizei(target.height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                             bytes.baseAddress.map { $0 + planes[index].offset })
            }
        }
        glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
    }

    func delete() {
        for target in targets {
            var texture = target.texture, framebuffer = target.framebuffer
            glDeleteTextures(1, &texture)
            glDeleteFramebuffers(1, &framebuffer)
            glDeleteProgram(target.program)
        }
        glDeleteVertexArrays(1, &vertexArray)
    }
}
