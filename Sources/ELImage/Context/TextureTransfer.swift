import CGLES

extension RenderContext {
    /// A frame from the pool with the given size and format, stamped with `timestamp` and its
    /// source's `sequenceNumber`, and tagged with its source's colour space and chroma siting.
    public func makeFrame(width: Int, height: Int, format: TextureFormat = .rgba8,
                          filtering: TextureFiltering = .linear, timestamp: MediaTime, sequenceNumber: Int = 0,
                          colorSpace: ColorSpace = .srgb, chromaLocation: ChromaLocation = .left) throws -> TextureFrame {
        try framePool.frame(for: TextureKey(width: width, height: height, format: format, filtering: filtering),
                            timestamp: timestamp, sequenceNumber: sequenceNumber, colorSpace: colorSpace,
                            chromaLocation: chromaLocation, resources: resources)
    }

    /// A frame from the pool for a picture drawn from `reference`: its time, sequence number,
    /// colour space and chroma siting; `format` defaults to `reference`'s working format.
    public func makeFrame(width: Int, height: Int, format: TextureFormat? = nil, filtering: TextureFiltering = .linear,
                          like reference: TextureFrame) throws -> TextureFrame {
        try makeFrame(width: width, height: height, format: format ?? reference.workingFormat, filtering: filtering,
                      timestamp: reference.timestamp, sequenceNumber: reference.sequenceNumber,
                      colorSpace: reference.colorSpace, chromaLocation: reference.chromaLocation)
    }

    /// Copies CPU pixels into `frame`, rows `bytesPerRow` apart (padding allowed); the caller has
    /// checked the buffer covers every row. GL counts row length in texels, so rows whose stride is
    /// not a whole number of texels are repacked first.
    func upload(_ pixels: UnsafeRawBufferPointer, bytesPerRow: Int, into frame: TextureFrame) throws {
        try Self.requireBytes(frame, for: "upload")
        let texelSize = frame.format.bytesPerPixel
        guard bytesPerRow % texelSize == 0 else {
            let row = frame.width * texelSize
            var packed = [UInt8](repeating: 0, count: row * frame.height)
            packed.withUnsafeMutableBytes { destination in
                for y in 0..<frame.height {
                    UnsafeMutableRawBufferPointer(rebasing: destination[(y * row)..<(y * row + row)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: pixels[(y * bytesPerRow)..<(y * bytesPerRow + row)]))
                }
            }
            try packed.withUnsafeBytes { try upload($0, bytesPerRow: row, into: frame) }
            return
        }
        glBindTexture(GLenum(GL_TEXTURE_2D), frame.texture)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(bytesPerRow / texelSize))
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(frame.width), GLsizei(frame.height),
                        frame.format.pixelFormat, GLenum(GL_UNSIGNED_BYTE), pixels.baseAddress)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        let error = glGetError()
        if error != GL_NO_ERROR { throw ELImageError.gl(call: "glTexSubImage2D(\(frame.key))", code: error) }
    }

    /// Reads `frame`'s pixels into `destination`, rows tightly packed, first row first.
    func readPixels(of frame: TextureFrame, into destination: UnsafeMutableRawBufferPointer) throws {
        try Self.requireBytes(frame, for: "read back")
        let needed = frame.width * frame.height * frame.format.bytesPerPixel
        guard destination.count >= needed, let base = destination.baseAddress else {
            throw ELImageError.invalidInput(what: "readback buffer of \(destination.count) bytes is smaller than \(needed)",
                                            hint: "size it width * height * bytes per pixel")
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), frame.framebuffer)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(frame.width), GLsizei(frame.height), frame.format.pixelFormat,
                     GLenum(GL_UNSIGNED_BYTE), base)
        let error = glGetError()
        if error != GL_NO_ERROR { throw ELImageError.gl(call: "glReadPixels(\(frame.key))", code: error) }
    }

    /// Throws unless `frame` holds 8-bit channels, the only kind moved to and from the CPU.
    private static func requireBytes(_ frame: TextureFrame, for action: String) throws {
        guard frame.format == .rgba16f else { return }
        throw ELImageError.invalidInput(what: "a \(frame.key) frame cannot be \(action) as bytes",
                                        hint: "half-float frames are intermediate results; convert to RGBA8 first")
    }
}
