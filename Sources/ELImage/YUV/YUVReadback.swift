import CGLES

/// The planes of a picture converted on the GPU, packed four 8-bit samples (or two 16-bit words) to
/// an RGBA texel, ready to be read back into a `PixelBuffer` of `format`.
///
/// Made on the render thread by `RenderContext.packPlanes(of:as:colorSpace:chromaLocation:)`; read on
/// the render thread or, after a `GLFence`, on a thread where a `SharedContext` of the same render
/// context is current (the encoder's readback thread). The textures stay reserved until this value
/// is released.
public struct PackedPlanes: Sendable {
    /// One texture per plane (the RGBA picture itself for `.rgba`).
    public let textures: [TextureFrame]
    public let format: PixelFormat
    public let width: Int
    public let height: Int
    public let colorSpace: ColorSpace
    public let chromaLocation: ChromaLocation
    public var timestamp: MediaTime { textures.first?.timestamp ?? .zero }
    /// The packed picture's number in its source's stream, given to the buffers read from it.
    public var sequenceNumber = 0
    /// Whether `textures` is one W/4 x 3H/2 texture holding the whole 4:2:0 frame's bytes (Y',
    /// then the two chroma planes), read back with one call.
    var isWholeFrame = false
    /// Texel columns of `textures[0]` on either side of the Y' plane (`MatchedPack420` draws the
    /// chroma sites beyond the picture's edges there): the plane is read from this column on.
    var lumaColumnOffset = 0

    /// Reads every plane into `buffer` (which must have this format and size), honouring each plane's
    /// offset and stride. Call where the render context or one of its shared contexts is current.
    public func read(into buffer: inout PixelBuffer) throws {
        guard buffer.format == format, buffer.width == width, buffer.height == height else {
            throw ELImageError.invalidInput(
                what: "planes of a \(width)x\(height) \(format) picture cannot be read into a \(buffer.width)x\(buffer.height) \(buffer.format) buffer",
                hint: "make the buffer with the same format and size")
        }
        buffer.timestamp = timestamp
        buffer.sequenceNumber = sequenceNumber
        buffer.colorSpace = colorSpace
        buffer.chromaLocation = chromaLocation
        // Bound for reading only: a texture bound for drawing counts as being drawn into, and on
        // llvmpipe reading it then waits for every draw queued on the context, not only its own.
        var framebuffer: GLuint = 0
        glGenFramebuffers(1, &framebuffer)
        defer { glDeleteFramebuffers(1, &framebuffer) }
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), framebuffer)
        if isWholeFrame, let texture = textures.first {
            glFramebufferTexture2D(GLenum(GL_READ_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D),
                                   texture.texture, 0)
            try Self.readWholeFrame(width: texture.width, height: texture.height, into: &buffer)
            glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), 0)
            return
        }
        for (index, texture) in textures.enumerated() {
            glFramebufferTexture2D(GLenum(GL_READ_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D),
                                   texture.texture, 0)
            let margin = index == 0 ? lumaColumnOffset : 0
            try Self.readBoundFramebuffer(x: margin, width: texture.width - 2 * margin, height: texture.height,
                                          plane: index, of: &buffer)
        }
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), 0)
    }

    /// Reads the bound framebuffer holding a whole 4:2:0 frame (`isWholeFrame`) into `buffer`: with
    /// one glReadPixels straight into place when its planes are tight and back to back, else
    /// through a scratch frame copied plane by plane.
    private static func readWholeFrame(width: Int, height: Int, into buffer: inout PixelBuffer) throws {
        let lumaBytes = buffer.width * buffer.height, chromaBytes = lumaBytes / 4
        let tight = buffer.planes.count == 3 && buffer.planes[0].offset == 0 && buffer.planes[0].bytesPerRow == buffer.width
            && buffer.planes[1].offset == lumaBytes && buffer.planes[1].bytesPerRow == buffer.width / 2
            && buffer.planes[2].offset == lumaBytes + chromaBytes && buffer.planes[2].bytesPerRow == buffer.width / 2
            && buffer.data.count >= width * height * 4
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        if tight {
            buffer.withUnsafeMutableData { bytes in
                glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
            }
        } else {
            var scratch = [UInt8](repeating: 0, count: width * height * 4)
            scratch.withUnsafeMutableBytes { bytes in
                glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
            }
            let planes = buffer.planes, (pictureWidth, pictureHeight) = (buffer.width, buffer.height)
            buffer.withUnsafeMutableData { destination in
                scratch.withUnsafeBytes { frame in
                    var source = 0
                    for (index, plane) in planes.enumerated() {
                        let rowBytes = index == 0 ? pictureWidth : pictureWidth / 2
                        for y in 0..<(index == 0 ? pictureHeight : pictureHeight / 2) {
                            let target = plane.offset + y * plane.bytesPerRow
                            UnsafeMutableRawBufferPointer(rebasing: destination[target..<(target + rowBytes)])
                                .copyMemory(from: UnsafeRawBufferPointer(rebasing: frame[source..<(source + rowBytes)]))
                            source += rowBytes
                        }
                    }
                }
            }
        }
        let error = glGetError()
        if error != GL_NO_ERROR { throw ELImageError.gl(call: "glReadPixels(whole 4:2:0 frame, \(width)x\(height))", code: error) }
    }

    /// Reads the bound framebuffer (RGBA texels holding a plane's bytes) into plane `index` of
    /// `buffer` (`width` texels from column `x`): straight into place when the plane's stride allows,
    /// else through a scratch buffer.
    private static func readBoundFramebuffer(x: Int, width: Int, height: Int, plane index: Int,
                                             of buffer: inout PixelBuffer) throws {
        let plane = buffer.planes[index]
        let rowBytes = buffer.shape(ofPlane: index).rowBytes
        let readRowBytes = width * 4
        let fitsInPlace = plane.bytesPerRow % 4 == 0 && plane.bytesPerRow >= readRowBytes
            && plane.offset + plane.bytesPerRow * (height - 1) + readRowBytes <= buffer.data.count
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        if fitsInPlace {
            glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), GLint(plane.bytesPerRow / 4))
            buffer.withUnsafeMutableData { bytes in
                glReadPixels(GLint(x), 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                             bytes.baseAddress.map { $0 + plane.offset })
            }
            glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        } else {
            var scratch = [UInt8](repeating: 0, count: readRowBytes * height)
            scratch.withUnsafeMutableBytes { bytes in
                glReadPixels(GLint(x), 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                             bytes.baseAddress)
            }
            buffer.withUnsafeMutableData { destination in
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
        if error != GL_NO_ERROR { throw ELImageError.gl(call: "glReadPixels(plane \(index), \(width)x\(height))", code: error) }
    }
}

extension RenderContext {
    /// Converts an RGBA frame to the planes of `format` on the GPU (Y'CbCr with `colorSpace` and
    /// chroma siting, or RGBA as is), without reading them back. One draw per plane packs four 8-bit
    /// samples into an RGBA texel, so the GPU shades a quarter of the samples and the readback is a
    /// plain RGBA copy. `chromaDownsampling` picks the chroma filter of subsampled formats.
    public func packPlanes(of frame: TextureFrame, as format: PixelFormat, colorSpace: ColorSpace,
                           chromaLocation: ChromaLocation = .left,
                           chromaDownsampling: ChromaDownsampling = .matched) throws -> PackedPlanes {
        guard frame.format == .rgba8 || frame.format == .rgba16f else {
            throw ELImageError.invalidInput(what: "Y'CbCr conversion needs an RGBA frame, got \(frame.format)",
                                            hint: "convert after a node that outputs RGBA")
        }
        let kinds = try Self.planeKinds(of: format)
        guard !kinds.isEmpty else {  // RGBA: the frame is its own plane (rounded to 8 bits from half floats)
            let picture = frame.format == .rgba8 ? frame
                : try renderPass("passthrough", fragment: EmbeddedShaders.passthroughFsh, inputs: [frame],
                                 width: frame.width, height: frame.height, like: frame, format: .rgba8)
            return PackedPlanes(textures: [picture], format: format, width: frame.width, height: frame.height,
                                colorSpace: colorSpace, chromaLocation: chromaLocation)
        }
        if !frame.isMonochrome, MatchedPack420.applies(to: format, width: frame.width, height: frame.height,
                                                       chromaLocation: chromaLocation, chromaDownsampling: chromaDownsampling) {
            return try MatchedPack420.pack(frame, as: format, colorSpace: colorSpace, chromaLocation: chromaLocation, in: self)
        }
        let conversion = YCbCrConversion.fromRGB(colorSpace, bitsPerSample: format.bitsPerSample)
        let divisor = PlaneTextureLayout(format).chromaDivisor
        let setUniforms = { (program: ShaderProgram) in
            program.set(.vec2([Float(frame.width), Float(frame.height)]), for: "pictureSize")
            program.set(.vec2([Float(1 / Double(frame.width)), Float(1 / Double(frame.height))]), for: "inversePictureSize")
            program.set(.int(format == .nv21 || format == .yv12 ? 1 : 0), for: "swapOutputChroma")
            program.set(.mat3(conversion.matrix), for: "yuvMatrix")
            program.set(.vec3(conversion.offset), for: "yuvOffset")
            program.set(.float(Float((1 << format.bitsPerSample) - 1)), for: "largestSample")
            program.set(.float(Float(format.largestStoredSample / ((1 << format.bitsPerSample) - 1))), for: "storedScale")
        }
        /// rgba_to_yuv.fsh drawing planes of `kind`, its chroma from the matched filter's averages
        /// (`averaged`, sharpened down already or not) or from the picture.
        let program = { (kind: PlaneKind, averaged: Bool, sharpenedDown: Bool) throws -> ShaderProgram in
            var defines = [("PLANE_KIND", Int(kind.rawValue))]
            if kind == .packed422 { defines.append(("PACKED_UYVY", format == .uyvy ? 1 : 0)) }
            defines += [("SAMPLE_BYTES", format.bytesPerSample), ("PICTURE_SNAP", frame.format == .rgba8 ? 1 : 0),
                        ("VERTICAL_SHARPENED", sharpenedDown ? 1 : 0),
                        ("CHROMA_DIVISOR_X", Int(divisor.x)), ("CHROMA_DIVISOR_Y", Int(divisor.y)),
                        ("CHROMA_SITING", Self.sitingDefine(chromaLocation)),
                        ("CHROMA_FILTER", (averaged ? ChromaDownsampling.matched : .average).shaderDefine),
                        ("BILINEAR_AVERAGE", frame.key.filtering == .linear && frame.key.wrap == .clampToEdge ? 1 : 0)]
            let variant = ShaderVariant("rgba_to_yuv", source: EmbeddedShaders.rgbaToYuvFsh, defines: defines)
            return try self.program(named: variant.name, fragment: variant.source)
        }
        // Gray into I420 or YV12: only the Y' rows are drawn, chroma is the constant offset.
        if frame.isMonochrome, GrayPack.applies(to: format, width: frame.width, height: frame.height) {
            return try GrayPack.pack(format: format, width: frame.width, height: frame.height, timestamp: frame.timestamp,
                                     colorSpace: colorSpace, chromaLocation: chromaLocation,
                                     program: try program(.luma, false, false), inputs: [frame],
                                     setUniforms: setUniforms, in: self)
        }
        // The matched filter of subsampled chroma runs in two passes: the averages at every
        // chroma site first (`averagedChroma`), then the chroma planes sharpen them.
        var averaged = chromaDownsampling == .matched && (divisor.x == 2 || divisor.y == 2)
            ? try averagedChroma(of: frame, format: format, chromaLocation: chromaLocation, conversion: conversion) : nil
        // 10-bit chroma's long filter sharpens down once a site in a pass of its own, instead of
        // once for every output texel that reads the site.
        let sharpensDownFirst = averaged != nil && format.isHighDepth && divisor.y == 2
        if sharpensDownFirst, let averages = averaged {
            averaged = try sharpenedDown(averages, format: format)
        }
        let planeProgram = { (kind: PlaneKind) in try program(kind, averaged != nil, sharpensDownFirst) }
        /// What a plane's draw reads: the picture for Y', the averages for matched chroma; packed
        /// 4:2:2 takes both in one draw (the averages first, the picture second).
        let inputs = { (kind: PlaneKind) -> [TextureFrame] in
            switch kind {
            case .luma: [frame]
            case .packed422: averaged.map { [$0, frame] } ?? [frame]
            default: [averaged ?? frame]
            }
        }
        // I420 and YV12 whose rows fit whole texels (as the gray pack): the whole frame in one
        // target, one readback.
        if GrayPack.applies(to: format, width: frame.width, height: frame.height) {
            let packed = try makeFrame(width: frame.width / 4, height: frame.height * 3 / 2, filtering: .nearest,
                                       timestamp: frame.timestamp, colorSpace: colorSpace)
            for (kind, rows) in [(PlaneKind.luma, 0..<frame.height), (.wholeFrameChroma, frame.height..<packed.height)] {
                try draw(try planeProgram(kind), into: packed, inputs: inputs(kind), rows: rows, setUniforms: setUniforms)
            }
            var planes = PackedPlanes(textures: [packed], format: format, width: frame.width, height: frame.height,
                                      colorSpace: colorSpace, chromaLocation: chromaLocation)
            planes.isWholeFrame = true
            return planes
        }
        let textures = try kinds.enumerated().map { index, kind in
            let shape = format.planeShape(index, width: frame.width, height: frame.height)
            // Output texels a plane's texel: 4 bytes a texel against the plane's bytes a texel.
            let texelWidth = switch kind {
            case .packed422: shape.width  // the plane's shape counts texels of two pixels already
            case .rgba64: shape.width * 2
            default: (shape.width * shape.bytesPerTexel + 3) / 4
            }
            let packed = try makeFrame(width: texelWidth,
                                       height: shape.height, filtering: .nearest, timestamp: frame.timestamp,
                                       colorSpace: colorSpace)
            try draw(try planeProgram(kind), into: packed, inputs: inputs(kind), setUniforms: setUniforms)
            return packed
        }
        return PackedPlanes(textures: textures, format: format, width: frame.width, height: frame.height,
                            colorSpace: colorSpace, chromaLocation: chromaLocation)
    }

    /// The matched chroma filter's first pass: the [1 2 1]/4 or [1 1]/2 average of `frame`'s
    /// R'G'B' around every chroma site of `format` at `chromaLocation`, converted to Cb Cr with
    /// `conversion`'s matrix (the offset is added after the sharpening), two sites a texel, with a border of one site all round (averages of clamped
    /// pixels), in a half-float frame that keeps the precision the second pass's sharpening would
    /// otherwise amplify. 2 to 6 exact reads a site, shared by Cb and Cr.
    private func averagedChroma(of frame: TextureFrame, format: PixelFormat, chromaLocation: ChromaLocation,
                                conversion: YCbCrConversion) throws -> TextureFrame {
        let divisor = PlaneTextureLayout(format).chromaDivisor
        let sites = format.planeShape(1, width: frame.width, height: frame.height)  // in chroma samples
        let averages = try makeFrame(width: (sites.width + 3) / 2, height: sites.height + 2, format: .rgba16f,
                                     filtering: .nearest, timestamp: frame.timestamp)
        let variant = ShaderVariant("rgba_to_yuv", source: EmbeddedShaders.rgbaToYuvFsh, defines: [
            ("PLANE_KIND", Int(PlaneKind.averagedChroma.rawValue)),
            ("CHROMA_DIVISOR_X", Int(divisor.x)), ("CHROMA_DIVISOR_Y", Int(divisor.y)),
            ("CHROMA_SITING", Self.sitingDefine(chromaLocation)),
            ("CHROMA_FILTER", ChromaDownsampling.matched.shaderDefine),
            ("PICTURE_SNAP", frame.format == .rgba8 ? 1 : 0)])
        let program = try self.program(named: variant.name, fragment: variant.source)
        try draw(program, into: averages, inputs: [frame]) { program in
            program.set(.vec2([Float(frame.width), Float(frame.height)]), for: "pictureSize")
            program.set(.mat3(conversion.matrix), for: "yuvMatrix")
        }
        return averages
    }

    /// The matched filter's vertical half for 10- and 16-bit chroma (`PLANE_KIND` 8): `averages`
    /// sharpened down, in the same layout, so that each site is sharpened once.
    private func sharpenedDown(_ averages: TextureFrame, format: PixelFormat) throws -> TextureFrame {
        let sharpened = try makeFrame(width: averages.width, height: averages.height, format: .rgba16f,
                                      filtering: .nearest, timestamp: averages.timestamp)
        let variant = ShaderVariant("rgba_to_yuv", source: EmbeddedShaders.rgbaToYuvFsh, defines: [
            ("PLANE_KIND", Int(PlaneKind.sharpenedDownChroma.rawValue)), ("SAMPLE_BYTES", format.bytesPerSample),
            ("CHROMA_DIVISOR_Y", 2), ("CHROMA_FILTER", ChromaDownsampling.matched.shaderDefine)])
        let program = try self.program(named: variant.name, fragment: variant.source)
        try draw(program, into: sharpened, inputs: [averages]) { _ in }
        return sharpened
    }

    /// Converts an RGBA frame into `buffer`'s format on the GPU (with `buffer`'s colour space and
    /// chroma siting) and reads the planes back into `buffer`, honouring each plane's offset and
    /// stride. `buffer` must have the frame's size.
    public func readPixels(of frame: TextureFrame, into buffer: inout PixelBuffer,
                           chromaDownsampling: ChromaDownsampling = .matched) throws {
        guard buffer.width == frame.width, buffer.height == frame.height else {
            throw ELImageError.invalidInput(
                what: "a \(frame.width)x\(frame.height) frame cannot be read into a \(buffer.width)x\(buffer.height) buffer",
                hint: "make the buffer the frame's size")
        }
        var planes = try packPlanes(of: frame, as: buffer.format, colorSpace: buffer.colorSpace,
                                    chromaLocation: buffer.chromaLocation, chromaDownsampling: chromaDownsampling)
        planes.sequenceNumber = frame.sequenceNumber
        try planes.read(into: &buffer)
    }

    /// Fills texel rows `rows` of `target` with the byte value nearest `value` * 255.
    func clearRows(_ rows: Range<Int>, of target: TextureFrame, to value: Float) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
        glEnable(GLenum(GL_SCISSOR_TEST))
        glScissor(0, GLint(rows.lowerBound), GLsizei(target.width), GLsizei(rows.count))
        glClearColor(value, value, value, value)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        glDisable(GLenum(GL_SCISSOR_TEST))
    }

    /// rgba_to_yuv.fsh's `CHROMA_SITING` for `location`.
    static func sitingDefine(_ location: ChromaLocation) -> Int {
        switch location {
        case .left: 0
        case .center: 1
        case .topLeft: 2
        }
    }

    /// What rgba_to_yuv.fsh writes (its `PLANE_KIND`).
    enum PlaneKind: Int32 {
        case luma = 0, cb = 1, cr = 2, interleavedChroma = 3
        /// Both 4:2:0 chroma planes below Y' in one frame-sized target (`PackedPlanes.isWholeFrame`).
        case wholeFrameChroma = 4
        /// The matched chroma filter's first pass: averaged Cb Cr at each chroma site, two a texel.
        case averagedChroma = 5
        /// Packed 4:2:2 (YUYV, UYVY): two pixels a texel, their two Y' and one Cb Cr pair.
        case packed422 = 6
        /// 16-bit RGBA: half a pixel a texel (red and green, or blue and alpha).
        case rgba64 = 7
        /// The averages of `averagedChroma` sharpened down (10- and 16-bit chroma's long filter).
        case sharpenedDownChroma = 8
    }

    /// The planes `format` is read back as; empty for RGBA (read as is).
    static func planeKinds(of format: PixelFormat) throws -> [PlaneKind] {
        switch format {
        case .i420, .i422, .i444, .i420p10: return [.luma, .cb, .cr]
        case .yv12: return [.luma, .cr, .cb]
        case .nv12, .nv21, .p010: return [.luma, .interleavedChroma]
        case .rgba64: return [.rgba64]
        case .yuyv, .uyvy: return [.packed422]
        case .gray8: return [.luma]
        case .rgba: return []
        case .rgb24, .bgra:
            throw ELImageError.invalidInput(
                what: "reading frames back as \(format) is not supported",
                hint: "read as i420, yv12, nv12, nv21, i422, i444, yuyv, uyvy, gray8 or rgba")
        }
    }
}
