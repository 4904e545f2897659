import CGLES

extension RenderContext {
    /// Converts an RGBA frame into `buffer`'s format on the GPU (Y'CbCr with `buffer`'s colour space
    /// and chroma siting, or RGBA as is) and reads the planes back into `buffer.data`, honouring
    /// each plane's offset and stride. `buffer` must have the frame's size.
    ///
    /// Each plane is one draw that packs four 8-bit samples into an RGBA texel, so the GPU shades a
    /// quarter of the samples and the readback is a plain RGBA copy.
    public func readPixels(of frame: TextureFrame, into buffer: inout PixelBuffer) throws {
        guard buffer.width == frame.width, buffer.height == frame.height else {
            throw ELImageError.invalidInput(
                what: "a \(frame.width)x\(frame.height) frame cannot be read into a \(buffer.width)x\(buffer.height) buffer",
                hint: "make the buffer the frame's size")
        }
        guard frame.format == .rgba8 else {
            throw ELImageError.invalidInput(what: "Y'CbCr readback needs an RGBA frame, got \(frame.format)",
                                            hint: "read it after a node that outputs RGBA")
        }
        buffer.timestamp = frame.timestamp
        let kinds = try Self.planeKinds(of: buffer.format)
        if kinds.isEmpty {  // RGBA
            try readPlane(frame, plane: 0, of: &buffer)
            return
        }
        let program = try self.program(named: "rgba_to_yuv", fragment: EmbeddedShaders.rgbaToYuvFsh)
        let conversion = YCbCrConversion.fromRGB(buffer.colorSpace)
        let divisor = PlaneTextureLayout(buffer.format).chromaDivisor
        for (index, kind) in kinds.enumerated() {
            let shape = buffer.shape(ofPlane: index)
            let samplesPerTexel = kind == .interleavedChroma ? 2 : 4
            let packed = try makeFrame(width: (shape.width + samplesPerTexel - 1) / samplesPerTexel,
                                       height: shape.height, filtering: .nearest, timestamp: frame.timestamp)
            try draw(program, into: packed, inputs: [frame]) { program in
                program.set(.int(kind.rawValue), for: "planeKind")
                program.set(.vec2([Float(frame.width), Float(frame.height)]), for: "pictureSize")
                program.set(.vec2(divisor), for: "chromaDivisor")
                program.set(.int(buffer.chromaLocation == .center ? 1 : 0), for: "centredChroma")
                program.set(.int(buffer.format == .nv21 ? 1 : 0), for: "swapChroma")
                program.set(.mat3(conversion.matrix), for: "colorMatrix")
                program.set(.vec3(conversion.offset), for: "colorOffset")
            }
            try readPlane(packed, plane: index, of: &buffer)
        }
    }

    /// What rgba_to_yuv.fsh writes (its `planeKind`).
    enum PlaneKind: Int32 {
        case luma = 0, cb = 1, cr = 2, interleavedChroma = 3
    }

    static func planeKinds(of format: PixelFormat) throws -> [PlaneKind] {
        switch format {
        case .i420, .i422, .i444: return [.luma, .cb, .cr]
        case .yv12: return [.luma, .cr, .cb]
        case .nv12, .nv21: return [.luma, .interleavedChroma]
        case .gray8: return [.luma]
        case .rgba: return []
        case .yuyv, .uyvy, .rgb24, .bgra:
            throw ELImageError.invalidInput(
                what: "reading frames back as \(format) is not supported",
                hint: "read as i420, yv12, nv12, nv21, i422, i444, gray8 or rgba")
        }
    }

    /// Reads `source` (RGBA texels holding the plane's bytes) into plane `index` of `buffer`:
    /// straight into place when the plane's stride allows, else through a scratch buffer.
    private func readPlane(_ source: TextureFrame, plane index: Int, of buffer: inout PixelBuffer) throws {
        let plane = buffer.planes[index]
        let rowBytes = buffer.shape(ofPlane: index).rowBytes
        let readRowBytes = source.width * 4
        let height = source.height
        let fitsInPlace = plane.bytesPerRow % 4 == 0 && plane.bytesPerRow >= readRowBytes
            && plane.offset + plane.bytesPerRow * (height - 1) + readRowBytes <= buffer.data.count
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), source.framebuffer)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        if fitsInPlace {
            glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), GLint(plane.bytesPerRow / 4))
            buffer.data.withUnsafeMutableBytes { bytes in
                glReadPixels(0, 0, GLsizei(source.width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                             bytes.baseAddress.map { $0 + plane.offset })
            }
            glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        } else {
            var scratch = [UInt8](repeating: 0, count: readRowBytes * height)
            scratch.withUnsafeMutableBytes { bytes in
                glReadPixels(0, 0, GLsizei(source.width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                             bytes.baseAddress)
            }
            buffer.data.withUnsafeMutableBytes { destination in
                scratch.withUnsafeBytes { rows in
                    for y in 0..<height {
                        let target = plane.offset + y * plane.bytesPerRow
                        UnsafeMutableRawBufferPointer(rebasing: destination[target..<(target + rowBytes)])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: rows[(y * readRowBytes)..<(y * readRowBytes + rowBytes)]))
                    }
                }
            }
        }
        let error = glGetError()
        if error != GL_NO_ERROR { throw ELImageError.gl(call: "glReadPixels(plane \(index), \(source.key))", code: error) }
    }
}
