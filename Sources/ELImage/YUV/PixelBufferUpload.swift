import CGLES

extension RenderContext {
    /// Uploads `buffer`'s planes into pooled textures and converts them to one RGBA frame in a single
    /// pass: Y'CbCr with the buffer's matrix and range (chroma interpolated at its siting), or RGB
    /// as is; turned by `orientation`. The frame carries the buffer's time, sequence number, colour
    /// space and chroma siting. Pictures of more than 8 bits a sample (`PixelFormat.isHighDepth`) become half-float
    /// frames, which the filters after them keep; `halfFloat` makes any picture one (for a graph
    /// that ends in a sink of more than 8 bits).
    public func makeFrame(from buffer: PixelBuffer, orientation: Orientation = .up, halfFloat: Bool = false) throws -> TextureFrame {
        let layout = PlaneTextureLayout(buffer.format)
        let planes = try uploadPlanes(of: buffer, layout: layout)
        let size = orientation.outputSize(width: buffer.width, height: buffer.height)
        let output = try makeFrame(width: size.width, height: size.height,
                                   format: buffer.format.isHighDepth || halfFloat ? .rgba16f : .rgba8, timestamp: buffer.timestamp,
                                   sequenceNumber: buffer.sequenceNumber, colorSpace: buffer.colorSpace,
                                   chromaLocation: buffer.chromaLocation)
        let variant = ShaderVariant("yuv_to_rgba", source: EmbeddedShaders.yuvToRgbaFsh,
                                    defines: [("PLANE_LAYOUT", Int(layout.shaderLayout)),
                                              ("SAMPLE_BYTES", buffer.format.bytesPerSample)] + layout.chromaDefines)
        let program = try self.program(named: variant.name, vertex: EmbeddedShaders.orientedVsh,
                                       fragment: variant.source)
        try draw(program, into: output, inputs: planes) { program in
            program.set(.mat3(orientation.textureTransform), for: "textureTransform")
            Self.setPlaneUniforms(of: program, for: buffer, layout: layout)
        }
        output.markOpaque(!buffer.format.hasAlpha)
        return output
    }

    /// Uploads `buffer`'s planes into pooled textures, as yuv_to_rgba.fsh reads them with `layout`
    /// (two planar chroma planes interleaved into one texture, in pairs of samples for 8-bit
    /// planes: `PlaneTextureLayout.pairsChroma`). `lumaQuads`: the Y' plane as
    /// RGBA8 texels of four samples (width / 4 texels; the fused Y' pass, `FUSED_LUMA_QUADS`).
    func uploadPlanes(of buffer: PixelBuffer, layout: PlaneTextureLayout, lumaQuads: Bool = false) throws -> [TextureFrame] {
        let limit = info.maximumTextureSize
        var planes: [TextureFrame] = []
        for index in 0..<(layout.interleavesChroma ? 2 : buffer.format.planeCount) {
            let shape = buffer.shape(ofPlane: index)
            let (width, format) = index == 1 && layout.interleavesChroma
                ? (shape.width, .rgba8)  // in pairs of samples (8 bits) or of bytes (16)
                : index == 0 && lumaQuads ? (shape.width / 4, .rgba8) : layout.texture(for: shape)
            guard width <= limit, shape.height <= limit else {
                throw ELImageError.invalidInput(
                    what: "a \(buffer.width)x\(buffer.height) \(buffer.format) image needs a \(width)x\(shape.height) texture, over this GPU's \(limit)",
                    hint: "scale the image down before uploading it")
            }
            let texture = try makeFrame(width: width, height: shape.height, format: format,
                                        filtering: layout.usesTexelFetch || (index == 0 && lumaQuads) ? .nearest : .linear,
                                        timestamp: buffer.timestamp)
            if index == 1 && layout.interleavesChroma {
                try uploadInterleavedChroma(of: buffer, into: texture)
            } else {
                try uploadPlane(index, of: buffer, into: texture)
            }
            planes.append(texture)
        }
        return planes
    }

    /// Sets yuv_to_rgba.fsh's uniforms that describe `buffer`'s planes and colour space (all but
    /// the orientation's `textureTransform`).
    static func setPlaneUniforms(of program: ShaderProgram, for buffer: PixelBuffer, layout: PlaneTextureLayout) {
        let conversion = buffer.format.isYUV
            ? YCbCrConversion.toRGB(buffer.colorSpace, bitsPerSample: buffer.format.bitsPerSample) : .identity
        let chroma = buffer.format.planeCount > 1 ? buffer.shape(ofPlane: 1) : buffer.shape(ofPlane: 0)
        let divisor = layout.chromaDivisor
        program.set(.vec2([Float(buffer.width), Float(buffer.height)]), for: "lumaSize")
        program.set(.vec2([Float(chroma.width), Float(chroma.height)]), for: "chromaSize")
        program.set(.vec2(1 / divisor), for: "chromaScale")
        program.set(.vec2(chromaSiting(buffer.chromaLocation, divisor: divisor)), for: "chromaSiting")
        program.set(.int(layout.swapsChroma ? 1 : 0), for: "swapChroma")
        program.set(.int(buffer.format == .uyvy ? 1 : 0), for: "uyvyOrder")
        program.set(.int(buffer.format == .bgra ? 1 : 0), for: "swapRedBlue")
        program.set(.mat3(conversion.matrix), for: "colorMatrix")
        program.set(.vec3(conversion.offset), for: "colorOffset")
        program.set(.float(Float(1 / Double(buffer.format.largestStoredSample))), for: "inverseLargestSample")
    }

    /// Offset of the chroma sample from the centre of its block, in chroma samples.
    static func chromaSiting(_ location: ChromaLocation, divisor: SIMD2<Float>) -> SIMD2<Float> {
        let horizontal: Float = divisor.x == 2 && location != .center ? 0.25 : 0
        let vertical: Float = divisor.y == 2 && location == .topLeft ? 0.25 : 0
        return [horizontal, vertical]
    }

    private func uploadPlane(_ index: Int, of buffer: PixelBuffer, into texture: TextureFrame) throws {
        let plane = buffer.planes[index]
        try buffer.data.withUnsafeBytes { bytes in
            try upload(UnsafeRawBufferPointer(rebasing: bytes[plane.offset...]), bytesPerRow: plane.bytesPerRow, into: texture)
        }
    }
}

/// How a pixel format's planes become textures and what the conversion shader does with them.
struct PlaneTextureLayout {
    let format: PixelFormat

    init(_ format: PixelFormat) { self.format = format }

    /// The texture width and format for a plane of `shape`.
    func texture(for shape: PixelFormat.PlaneShape) -> (width: Int, format: TextureFormat) {
        switch shape.bytesPerTexel {
        case 1: (shape.width, .r8)
        case 2: (shape.width, .rg8)
        case 3: (shape.width * 3, .r8)  // RGB24: three R8 texels per pixel, fetched one by one
        case 8: (shape.width * 2, .rgba8)  // RGBA64: two RGBA8 texels per pixel
        default: (shape.width, .rgba8)
        }
    }

    /// Formats the shader reads with texelFetch, which must not be filtered.
    var usesTexelFetch: Bool { format == .yuyv || format == .uyvy || format == .rgb24 }

    /// Planar formats whose two chroma planes are uploaded interleaved into one RG8 texture
    /// (`uploadInterleavedChroma`) and converted like NV12.
    var interleavesChroma: Bool { [.i420, .yv12, .i422, .i444, .i420p10].contains(format) }

    /// 8-bit planar formats whose interleaved chroma texture holds two samples a texel, each
    /// texel's and the next (`CHROMA_PAIRS` in yuv_to_rgba.fsh): interpolating reads two texels
    /// instead of four, which made the conversion pass a fifth cheaper on llvmpipe.
    var pairsChroma: Bool { interleavesChroma && format.bytesPerSample == 1 }

    /// yuv_to_rgba.fsh's defines for how the chroma texture is laid out.
    var chromaDefines: [(String, Int)] { pairsChroma ? [("CHROMA_PAIRS", 1)] : [] }

    /// `PLANE_LAYOUT` in yuv_to_rgba.fsh.
    var shaderLayout: Int32 {
        switch format {
        case .i420, .yv12, .i422, .i444, .nv12, .nv21, .i420p10, .p010: 1
        case .yuyv, .uyvy: 2
        case .gray8: 3
        case .rgb24: 4
        case .bgra, .rgba, .rgba64: 5
        }
    }

    var swapsChroma: Bool { format == .yv12 || format == .nv21 }

    /// Chroma subsampling per direction.
    var chromaDivisor: SIMD2<Float> {
        switch format {
        case .i420, .yv12, .nv12, .nv21, .i420p10, .p010: [2, 2]
        case .i422, .yuyv, .uyvy: [2, 1]
        default: [1, 1]
        }
    }
}
