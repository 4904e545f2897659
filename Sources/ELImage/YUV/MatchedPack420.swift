/// 8-bit 4:2:0 planes (I420, YV12) with the matched chroma filter in two passes that each touch a
/// pixel once (`Shaders/pack_420.fsh`): the first computes each pixel's R'G'B' once, one fragment
/// per four pixels of a row, and writes the Y' plane and the chroma averages across; the second
/// writes both chroma planes, one fragment per four samples of each. The same filter and edges as
/// `rgba_to_yuv.fsh`'s three draws (Y', the averages at every site, each chroma plane), in about
/// half the GPU time on llvmpipe, where fragments cost more than reads.
///
/// The first pass's pixels come from an RGBA picture (`RenderContext.packPlanes`) or from a fused
/// colour line's generated pass (an uploaded picture not converted yet), which then never makes an RGBA picture.
enum MatchedPack420 {
    /// Whether the two passes pack `format` for a `width` x `height` picture sited at
    /// `chromaLocation`: 8-bit I420 or YV12 with the matched filter, chroma between rows (MPEG-2
    /// "left" or JPEG "center"), whole chroma texels (width % 8, height % 2).
    static func applies(to format: PixelFormat, width: Int, height: Int, chromaLocation: ChromaLocation,
                        chromaDownsampling: ChromaDownsampling) -> Bool {
        [.i420, .yv12].contains(format) && chromaDownsampling == .matched && takes(sitedAt: chromaLocation)
            && width % 8 == 0 && height % 2 == 0 && width >= 8
    }

    /// Whether the two passes take chroma sited at `location`: between rows (MPEG-2 "left", JPEG
    /// "center"), not top left.
    static func takes(sitedAt location: ChromaLocation) -> Bool { location != .topLeft }

    /// Whether a sink packing with `packing` (`PackingSink.packing`) packs with the two passes at
    /// sizes and sitings that fit (`applies`): 8-bit I420 or YV12 with the matched filter.
    static func takes(_ packing: (format: PixelFormat, chromaDownsampling: ChromaDownsampling)?) -> Bool {
        guard let packing else { return false }
        return [.i420, .yv12].contains(packing.format) && packing.chromaDownsampling == .matched
    }

    /// pack_420.fsh's defines for `pass` (1 or 2).
    static func defines(pass: Int, chromaLocation: ChromaLocation) -> [(String, Int)] {
        [("PACK_PASS", pass), ("CHROMA_SITING", chromaLocation == .center ? 1 : 0)]
    }

    /// Runs the first pass with `firstPass` (pack_420.fsh with `PACK_PASS` 1, or a fused line's
    /// program built on it) reading `inputs`, then the second, and returns the planes.
    /// `setUniforms` sets what the first pass needs besides the size and the matrix.
    static func pack(
        format: PixelFormat, width: Int, height: Int, timestamp: MediaTime, colorSpace: ColorSpace,
        chromaLocation: ChromaLocation, firstPass: ShaderProgram, inputs: [TextureFrame],
        setUniforms: (ShaderProgram) -> Void = { _ in }, in context: isolated RenderContext
    ) throws -> PackedPlanes {
        let conversion = YCbCrConversion.fromRGB(colorSpace, bitsPerSample: 8)
        let setCommon = { (program: ShaderProgram) in
            program.set(.vec2([Float(width), Float(height)]), for: "packPictureSize")
            program.set(.mat3(conversion.matrix), for: "packMatrix")
            program.set(.vec3(conversion.offset), for: "packOffset")
        }
        // Pass 1 draws a column of edge sites either side: the Y' plane is columns 1 ... W/4.
        let columns = width / 4 + 2
        let luma = try context.makeFrame(width: columns, height: height, filtering: .nearest, timestamp: timestamp,
                                         colorSpace: colorSpace)
        let averages = try context.makeFrame(width: columns, height: height, format: .rgba16f, filtering: .nearest,
                                             timestamp: timestamp)
        try context.draw(firstPass, into: [luma, averages], inputs: inputs) { program in
            setCommon(program)
            setUniforms(program)
        }
        let cb = try context.makeFrame(width: width / 8, height: height / 2, filtering: .nearest, timestamp: timestamp,
                                       colorSpace: colorSpace)
        let cr = try context.makeFrame(width: width / 8, height: height / 2, filtering: .nearest, timestamp: timestamp,
                                       colorSpace: colorSpace)
        let second = ShaderVariant("pack_420", source: EmbeddedShaders.pack420Fsh,
                                   defines: defines(pass: 2, chromaLocation: chromaLocation))
        try context.draw(try context.program(named: second.name, fragment: second.source), into: [cb, cr],
                         inputs: [averages], setUniforms: setCommon)
        var planes = PackedPlanes(textures: format == .yv12 ? [luma, cr, cb] : [luma, cb, cr], format: format,
                                  width: width, height: height, colorSpace: colorSpace, chromaLocation: chromaLocation)
        planes.lumaColumnOffset = 1
        return planes
    }

    /// Packs an RGBA picture (8-bit or half floats) with the two passes.
    static func pack(_ frame: TextureFrame, as format: PixelFormat, colorSpace: ColorSpace,
                     chromaLocation: ChromaLocation, in context: isolated RenderContext) throws -> PackedPlanes {
        let first = ShaderVariant("pack_420", source: EmbeddedShaders.pack420Fsh,
                                  defines: defines(pass: 1, chromaLocation: chromaLocation)
                                      + [("PICTURE_SNAP", frame.format == .rgba8 ? 1 : 0)])
        return try pack(format: format, width: frame.width, height: frame.height, timestamp: frame.timestamp,
                        colorSpace: colorSpace, chromaLocation: chromaLocation,
                        firstPass: try context.program(named: first.name, fragment: first.source), inputs: [frame],
                        in: context)
    }
}
