import CGLES

/// A Y'CbCr picture uploaded and not converted yet (`Picture`): its planes, and the colour pieces
/// the filters after it added, run after the conversion in the same pass. A source makes one when
/// its graph is a fused line (`FusableLine`: colour filters in a straight line into one sink that
/// packs, observers beside it anywhere, a crop or scale that keeps the picture), and the picture
/// then goes through the line's nodes like any other: each colour filter adds its piece, a filter
/// that keeps the picture hands it on, and the sink packs it:
/// - gray (the last piece `producesMonochrome`) into I420 or YV12: ONE pass writing the Y' rows
///   of the packed frame from the planes (no RGBA frame in between; chroma cleared to neutral);
/// - colour into 8-bit I420 or YV12 with the matched chroma filter (Y4M files, the encoder,
///   `YUVDataOutput` by default): `MatchedPack420`'s two passes, the first converting and colouring
///   each pixel once and writing the Y' plane and the chroma averages, the second both chroma planes;
/// - anything else, and any node that needs its pixels: one pass converting and colouring into an
///   RGBA frame (`render`), then the usual pack or readback.
/// The result is the separate passes' (same arithmetic, 8-bit rounding where they store frames,
/// with the same expressions), within one level where the GL's own rounding differs.
///
/// Whether pictures take the line is agreed once per plan (walked once per wiring, `GraphPlan`) and
/// pictures' format (`LineAgreement`): a turned picture, RGB input, more than 8 bits in or out, sizes
/// whose rows do not fit whole texels (width % 8, height % 4), a piece that samples a texture (a
/// lookup table: asked of each picture, as are filters that keep it), a plain conversion into a
/// sink that does not pack with the matched filter, and anything that is not a line run the nodes
/// on the converted RGBA frame.
package struct ConversionRecipe: PackablePicture, Sendable {
    let buffer: PixelBuffer
    let planes: [TextureFrame]
    let layout: PlaneTextureLayout
    /// The colour pieces after the conversion, first to last.
    let steps: [Recipe.ColorStep]
    /// The pieces' uniforms, under their prefixes.
    let uniforms: [String: UniformValue]
    /// How many chroma columns four neighbouring pixels of the source interpolate between (2:1
    /// subsampled across: 3 co-sited, 4 centred); nil reads chroma pixel by pixel (4:4:4).
    let sharedChromaColumns: Int?
    /// Whether the Y' plane was uploaded as RGBA8 texels of four samples, read with one fetch for
    /// the four pixels a fragment of the fused Y' pass converts (`FUSED_LUMA_QUADS`): agreed with
    /// the line's sink when the picture was uploaded (gray output, or a sink packing with
    /// `MatchedPack420`), with shared chroma columns.
    let readsLumaQuads: Bool

    package var width: Int { buffer.width }
    package var height: Int { buffer.height }
    package var timestamp: MediaTime { buffer.timestamp }
    package var sequenceNumber: Int { buffer.sequenceNumber }
    package var colorSpace: ColorSpace { buffer.colorSpace }
    package var chromaLocation: ChromaLocation { buffer.chromaLocation }

    /// Whether the picture is gray (its last piece makes gray).
    var monochrome: Bool { steps.last?.monochrome ?? false }
    private var pieces: [ColorPiece] { steps.map(\.piece) }
    private var chromaDefines: [(String, Int)] { layout.chromaDefines }

    /// The picture of `buffer` for `line`, uploaded as `agreement` says (made once for the plan
    /// and the pictures' format), or why it does not take the line: what the line's filters say of
    /// this picture (their settings can change at any frame).
    static func make(line: FusableLine, agreement: LineAgreement, buffer: PixelBuffer,
                     in context: isolated RenderContext) throws -> Result<ConversionRecipe, NotFused> {
        if let changing = line.passing.first(where: {
            !$0.passesOnUnchanged(width: buffer.width, height: buffer.height, colorSpace: buffer.colorSpace)
        }) {
            return .failure(NotFused(reason: "\(NodeFailure.name(of: changing)) changes a \(buffer.width)x\(buffer.height) picture"))
        }
        guard (try? line.operations.allSatisfy({ try $0.colorTextures(in: context).isEmpty })) == true else {
            return .failure(NotFused(reason: "a colour filter of the line samples a texture (a lookup table)"))
        }
        let planes = try context.uploadPlanes(of: buffer, layout: agreement.layout, lumaQuads: agreement.readsLumaQuads)
        return .success(ConversionRecipe(buffer: buffer, planes: planes, layout: agreement.layout, steps: [], uniforms: [:],
                                         sharedChromaColumns: agreement.sharedChromaColumns,
                                         readsLumaQuads: agreement.readsLumaQuads))
    }

    /// This picture with `operations` run after the conversion, in the same pass; nil when one
    /// of them samples a texture or there are too many (convert it first).
    func coloring(with operations: [any ColorOperation], in context: isolated RenderContext) throws -> ConversionRecipe? {
        guard steps.count + operations.count <= Recipe.mostPieces,
              try operations.allSatisfy({ try $0.colorTextures(in: context).isEmpty }) else { return nil }
        let (more, values, _) = try Recipe.steps(of: operations, firstIndex: steps.count, in: context)
        return ConversionRecipe(buffer: buffer, planes: planes, layout: layout, steps: steps + more,
                                uniforms: uniforms.merging(values) { $1 }, sharedChromaColumns: sharedChromaColumns,
                                readsLumaQuads: readsLumaQuads)
    }

    /// What the picture's passes are along `line` (its pieces, its sink), for `--explain`.
    func summary(along line: FusableLine) -> String {
        let sink = line.sink
        let chain = (["Y'CbCr"] + line.operations.map(\.colorPiece.name)).joined(separator: " → ")
        let name = NodeFailure.name(of: sink)
        let gray = line.operations.last?.producesMonochrome ?? false
        if gray, let packing = line.packing, [.i420, .yv12].contains(packing.format) {
            return "1 pass from the uploaded planes: \(chain) → the Y' rows of \(name)'s packed frame"
        }
        if MatchedPack420.takes(line.packing) {
            // Chroma the two passes do not take: the sink packs the coloured RGBA picture.
            guard MatchedPack420.takes(sitedAt: line.packingChromaLocation ?? chromaLocation) else {
                return "1 pass from the uploaded planes: \(chain) → RGBA, then \(name) packs it "
                    + "(chroma sited top left, which the two-pass pack does not take)"
            }
            return "1 pass from the uploaded planes: \(chain) → \(name)'s Y' plane and chroma averages, then 1 pass for both chroma planes"
        }
        return "1 pass from the uploaded planes: \(chain) → RGBA, then \(name) " + (line.packing == nil ? "reads it back" : "packs it")
    }

    /// The converted, coloured RGBA picture in one pass.
    func render(in context: isolated RenderContext) throws -> TextureFrame {
        let picture = try context.makeFrame(width: width, height: height, timestamp: timestamp,
                                            sequenceNumber: sequenceNumber, colorSpace: colorSpace,
                                            chromaLocation: chromaLocation)
        let program = try program(gray: nil, in: context)
        try context.draw(program, into: picture, inputs: planes) { program in
            setUniforms(of: program, format: .i420, colorSpace: colorSpace)
        }
        picture.markOpaque(true)  // converted from Y'CbCr
        picture.markMonochrome(monochrome)
        return picture
    }

    package func packed(as format: PixelFormat, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
                        chromaDownsampling: ChromaDownsampling, in context: isolated RenderContext) throws -> PackedPlanes {
        if monochrome, [.i420, .yv12].contains(format) {
            let program = try program(gray: (format, chromaLocation, chromaDownsampling), in: context)
            return try GrayPack.pack(format: format, width: width, height: height, timestamp: timestamp, colorSpace: colorSpace,
                                     chromaLocation: chromaLocation, program: program, inputs: planes, setUniforms: { program in
                setUniforms(of: program, format: format, colorSpace: colorSpace)
            }, in: context)
        }
        guard MatchedPack420.applies(to: format, width: width, height: height, chromaLocation: chromaLocation,
                                     chromaDownsampling: chromaDownsampling) else {
            return try render(in: context).packed(as: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                                                  chromaDownsampling: chromaDownsampling, in: context)
        }
        return try MatchedPack420.pack(
            format: format, width: width, height: height, timestamp: timestamp, colorSpace: colorSpace,
            chromaLocation: chromaLocation, firstPass: try packProgram(chromaLocation: chromaLocation, in: context),
            inputs: planes, setUniforms: { program in
                setUniforms(of: program, format: format, colorSpace: colorSpace)
            }, in: context)
    }

    /// The first pass of `MatchedPack420` with the conversion and the pieces in it: Y' and the
    /// chroma averages of 4:2:0 sited at `chromaLocation`, straight from the uploaded planes.
    private func packProgram(chromaLocation: ChromaLocation, in context: isolated RenderContext) throws -> ShaderProgram {
        var defines = MatchedPack420.defines(pass: 1, chromaLocation: chromaLocation) + chromaDefines
        if let columns = sharedChromaColumns { defines.append(("FUSED_CHROMA_COLUMNS", columns)) }
        if readsLumaQuads { defines.append(("FUSED_LUMA_QUADS", 1)) }
        let chain = FusedConversionShader.chainName(for: pieces)
        return try context.program(named: FusedConversionShader.programName(chain: chain, defines: defines),
                                   fragment: FusedConversionShader.fragmentSource(for: pieces, defines: defines))
    }

    /// The fused program: with `gray`, the Y' rows of the packed frame (its format, siting and
    /// chroma filter); without, the converted, coloured RGBA picture. Its source is generated only
    /// the first time the context meets its name.
    private func program(gray: (format: PixelFormat, location: ChromaLocation, downsampling: ChromaDownsampling)?,
                         in context: isolated RenderContext) throws -> ShaderProgram {
        var defines = chromaDefines + (readsLumaQuads ? [("FUSED_LUMA_QUADS", 1)] : [])
        if let gray {
            defines += [("PLANE_KIND", Int(RenderContext.PlaneKind.luma.rawValue)), ("CHROMA_DIVISOR_X", 2), ("CHROMA_DIVISOR_Y", 2),
                       ("CHROMA_SITING", RenderContext.sitingDefine(gray.location)),
                       ("CHROMA_FILTER", gray.downsampling.shaderDefine)]
            if let columns = sharedChromaColumns { defines.append(("FUSED_CHROMA_COLUMNS", columns)) }
        }
        let chain = FusedConversionShader.chainName(for: pieces)
        return try context.program(named: FusedConversionShader.programName(chain: chain, defines: defines),
                                   fragment: FusedConversionShader.fragmentSource(for: pieces, defines: defines))
    }

    /// Sets the fused program's uniforms: the planes, the picture size, the output matrix and the
    /// pieces' values.
    private func setUniforms(of program: ShaderProgram, format: PixelFormat, colorSpace: ColorSpace) {
        let conversion = YCbCrConversion.fromRGB(colorSpace)
        RenderContext.setPlaneUniforms(of: program, for: buffer, layout: layout)
        program.set(.vec2([Float(buffer.width), Float(buffer.height)]), for: "pictureSize")
        program.set(.vec2([Float(1 / Double(buffer.width)), Float(1 / Double(buffer.height))]), for: "inversePictureSize")
        program.set(.int(format == .yv12 ? 1 : 0), for: "swapOutputChroma")
        program.set(.mat3(conversion.matrix), for: "yuvMatrix")
        program.set(.vec3(conversion.offset), for: "yuvOffset")
        for (name, value) in uniforms { program.set(value, for: name) }
    }
}
