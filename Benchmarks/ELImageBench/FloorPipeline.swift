import CGLES
import ELImage

/// The bare-GLES floor of the canonical path: the least GL work that gives the framework's output
/// quality, with no framework at all (the approach of a hand-written C program against EGL +
/// GLES 3). Per frame: upload the three I420 planes; convert to RGBA (luma by texelFetch, each
/// chroma plane by one bilinear fetch); an optional filter pass; pack the whole I420 frame into
/// one RGBA8 target of W/4 x 3H/2 texels (four samples per texel, chroma as the 2x2 box average
/// from one bilinear fetch); read it back with one glReadPixels. The shaders are Shaders/floor_*.
/// For raw RGBA output, `readRGBA(into:)` reads the filtered RGBA picture back instead of packing.
final class FloorPipeline {
    /// The pass between conversion and packing.
    enum Filter: String {
        case none, grayscale, bilateral5
        /// Separable 13-tap Gaussian (sigma 2.5 px), texelFetch taps, two passes (rawgl's gauss13).
        case gauss13
    }

    let width: Int, height: Int
    private let filter: Filter
    private let planes: [GLuint]
    private let rgba: GLuint, filtered: GLuint, packed: GLuint
    private let rgbaFramebuffer: GLuint, filteredFramebuffer: GLuint, packedFramebuffer: GLuint
    /// The horizontal pass's result of the two-pass filters (gauss13), or nil.
    private let intermediate: (texture: GLuint, framebuffer: GLuint)?
    private let convertProgram: GLuint, filterProgram: GLuint?, lumaProgram: GLuint, chromaProgram: GLuint
    private var vertexArray: GLuint = 0

    /// Bytes of one I420 frame (what `read(into:)` writes).
    var frameBytes: Int { width * height * 3 / 2 }

    /// Bytes of one RGBA frame (what `readRGBA(into:)` writes).
    var rgbaBytes: Int { width * height * 4 }

    /// Builds the textures and programs; call on the render thread. The size must be a multiple of
    /// 8 across and 4 down (the packing puts whole chroma rows in texel rows).
    init(width: Int, height: Int, filter: Filter) throws {
        guard width % 8 == 0, height % 4 == 0 else {
            throw BenchmarkFailure("the floor needs a width that is a multiple of 8 and a height of 4, got \(width)x\(height)")
        }
        self.width = width
        self.height = height
        self.filter = filter
        planes = [BareGL.texture(width: width, height: height, format: GL_R8, filter: GL_NEAREST),
                  BareGL.texture(width: width / 2, height: height / 2, format: GL_R8),
                  BareGL.texture(width: width / 2, height: height / 2, format: GL_R8)]
        rgba = BareGL.texture(width: width, height: height, format: GL_RGBA8)
        filtered = BareGL.texture(width: width, height: height, format: GL_RGBA8)
        packed = BareGL.texture(width: width / 4, height: height * 3 / 2, format: GL_RGBA8, filter: GL_NEAREST)
        rgbaFramebuffer = BareGL.framebuffer(for: rgba)
        filteredFramebuffer = BareGL.framebuffer(for: filtered)
        packedFramebuffer = BareGL.framebuffer(for: packed)
        if filter == .gauss13 {
            let texture = BareGL.texture(width: width, height: height, format: GL_RGBA8, filter: GL_NEAREST)
            intermediate = (texture, BareGL.framebuffer(for: texture))
        } else {
            intermediate = nil
        }
        let vertex = try BareGL.shader("floor.vsh")
        convertProgram = try BareGL.program(vertex: vertex, fragment: try BareGL.shader("floor_i420_to_rgba.fsh"))
        switch filter {
        case .none: filterProgram = nil
        case .grayscale: filterProgram = try BareGL.program(vertex: vertex, fragment: try BareGL.shader("floor_grayscale.fsh"))
        case .bilateral5: filterProgram = try BareGL.program(vertex: vertex, fragment: try BareGL.shader("floor_bilateral5.fsh"))
        case .gauss13: filterProgram = try BareGL.program(vertex: vertex, fragment: try BareGL.shader("floor_gauss13.fsh"))
        }
        lumaProgram = try BareGL.program(vertex: vertex, fragment: try BareGL.shader("floor_pack_luma.fsh"))
        chromaProgram = try BareGL.program(vertex: vertex, fragment: try BareGL.shader("floor_pack_chroma.fsh"))
        glGenVertexArrays(1, &vertexArray)

        glUseProgram(convertProgram)
        glUniform1i(BareGL.uniform(convertProgram, "lumaPlane"), 0)
        glUniform1i(BareGL.uniform(convertProgram, "cbPlane"), 1)
        glUniform1i(BareGL.uniform(convertProgram, "crPlane"), 2)
        glUniform2f(BareGL.uniform(convertProgram, "inverseSize"), 1 / Float(width), 1 / Float(height))
        if let filterProgram {
            glUseProgram(filterProgram)
            glUniform1i(BareGL.uniform(filterProgram, "source"), 3)
            glUniform2i(BareGL.uniform(filterProgram, "lastPixel"), GLint(width - 1), GLint(height - 1))
        }
        glUseProgram(lumaProgram)
        glUniform1i(BareGL.uniform(lumaProgram, "source"), 3)
        glUseProgram(chromaProgram)
        glUniform1i(BareGL.uniform(chromaProgram, "source"), 3)
        glUniform2f(BareGL.uniform(chromaProgram, "inverseSize"), 1 / Float(width), 1 / Float(height))
        glUniform1i(BareGL.uniform(chromaProgram, "pictureHeight"), GLint(height))
        glUniform1i(BareGL.uniform(chromaProgram, "eighthWidth"), GLint(width / 8))
        let error = glGetError()
        if error != GL_NO_ERROR { throw BenchmarkFailure("the floor's GL set-up failed with GL error \(error)") }
    }

    /// Deletes the GL objects; call on the render thread.
    func delete() {
        var textures = planes + [rgba, filtered, packed] + (intermediate.map { [$0.texture] } ?? [])
        glDeleteTextures(GLsizei(textures.count), &textures)
        var framebuffers = [rgbaFramebuffer, filteredFramebuffer, packedFramebuffer] + (intermediate.map { [$0.framebuffer] } ?? [])
        glDeleteFramebuffers(GLsizei(framebuffers.count), &framebuffers)
        glDeleteVertexArrays(1, &vertexArray)
        for program in [convertProgram, lumaProgram, chromaProgram] + (filterProgram.map { [$0] } ?? []) {
            glDeleteProgram(program)
        }
    }

    /// One whole frame: `i420` (tightly packed, this size) in, the I420 result in `result`.
    func run(_ i420: UnsafeRawBufferPointer, into result: UnsafeMutableRawBufferPointer) {
        upload(i420)
        convert()
        applyFilter()
        pack()
        read(into: result)
    }

    func upload(_ i420: UnsafeRawBufferPointer) {
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        let offsets = [0, width * height, width * height * 5 / 4]
        for (index, texture) in planes.enumerated() {
            let divisor = index == 0 ? 1 : 2
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(index)))
            glBindTexture(GLenum(GL_TEXTURE_2D), texture)
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(width / divisor), GLsizei(height / divisor),
                            GLenum(GL_RED), GLenum(GL_UNSIGNED_BYTE), i420.baseAddress.map { $0 + offsets[index] })
        }
    }

    func convert() {
        for (index, texture) in planes.enumerated() {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(index)))
            glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        }
        glUseProgram(convertProgram)
        draw(into: rgbaFramebuffer, y: 0, width: width, height: height)
    }

    func applyFilter() {
        guard let filterProgram else { return }
        glActiveTexture(GLenum(GL_TEXTURE3))
        glBindTexture(GLenum(GL_TEXTURE_2D), rgba)
        glUseProgram(filterProgram)
        if let intermediate {
            // Two passes: horizontal into the intermediate texture, then vertical into `filtered`.
            let direction = BareGL.uniform(filterProgram, "direction")
            glUniform2i(direction, 1, 0)
            draw(into: intermediate.framebuffer, y: 0, width: width, height: height)
            glBindTexture(GLenum(GL_TEXTURE_2D), intermediate.texture)
            glUniform2i(direction, 0, 1)
        }
        draw(into: filteredFramebuffer, y: 0, width: width, height: height)
    }

    func pack() {
        glActiveTexture(GLenum(GL_TEXTURE3))
        glBindTexture(GLenum(GL_TEXTURE_2D), filterProgram == nil ? rgba : filtered)
        glUseProgram(lumaProgram)
        draw(into: packedFramebuffer, y: 0, width: width / 4, height: height)
        glUseProgram(chromaProgram)
        draw(into: packedFramebuffer, y: height, width: width / 4, height: height / 2)
    }

    /// The single readback of the packed frame into `result` (at least `frameBytes`).
    func read(into result: UnsafeMutableRawBufferPointer) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), packedFramebuffer)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        glReadPixels(0, 0, GLsizei(width / 4), GLsizei(height * 3 / 2), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                     result.baseAddress)
    }

    /// One whole frame for raw RGBA output: upload, convert, filter, then one readback of the RGBA
    /// picture (no packing) into `result` (at least `rgbaBytes`).
    func runRGBA(_ i420: UnsafeRawBufferPointer, into result: UnsafeMutableRawBufferPointer) {
        upload(i420)
        convert()
        applyFilter()
        readRGBA(into: result)
    }

    /// The single readback of the (filtered) RGBA picture into `result` (at least `rgbaBytes`).
    func readRGBA(into result: UnsafeMutableRawBufferPointer) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), filterProgram == nil ? rgbaFramebuffer : filteredFramebuffer)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), result.baseAddress)
    }

    private func draw(into framebuffer: GLuint, y: Int, width: Int, height: Int) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glViewport(0, GLint(y), GLsizei(width), GLsizei(height))
        glBindVertexArray(vertexArray)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
    }
}
