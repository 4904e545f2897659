import CGLES

/// Pass fusion across the graph: Y'CbCr planes → colour filters → a sink, in fewer passes.
///
/// When a `RawDataInput` gets a Y'CbCr `PixelBuffer` and its graph is a straight line of per-pixel
/// colour nodes (`ColorOperation` filters such as `Grayscale` or `Brightness`, `ColorChain`s,
/// `FilterGroup`s made of them) ending in one `PackingSink` (a `YUVDataOutput`, a `FrameStream`, a
/// Y4M, raw RGBA or image file, the encoder) that packs 8-bit samples or RGBA, the plan runs the
/// line as generated passes (`FusedConversionShader`) that read the uploaded planes:
/// - gray output (the last operation `producesMonochrome`) into I420 or YV12: the sink gets a picture whose packing
///   is ONE pass writing the Y' rows of the packed frame it reads back (no RGBA frame in between;
///   the chroma rows are cleared to the neutral value), on the render thread as its own packing
///   would be, then its usual path (a readback here, or fence → queue → worker → readback);
/// - colour output into 8-bit I420 or YV12 with the matched chroma filter (Y4M files, the encoder,
///   `YUVDataOutput` by default): the sink gets a picture whose packing is `MatchedPack420`'s two
///   passes, the first converting and colouring each pixel once and writing the Y' plane and the
///   chroma averages, the second both chroma planes (two passes instead of four);
/// - colour output into anything else (and gray into any other format): one pass converting and
///   colouring into an RGBA picture, then the ordinary pack or readback (into RGBA, one pass
///   instead of two).
/// The result is the separate passes' result (same arithmetic, 8-bit rounding where they store
/// frames, with the same expressions), within one level where the GL's own rounding differs.
///
/// Targets that only observe frames (`FrameObserver`: a `FrameCounter`, a size check) may sit
/// beside the line anywhere; they hear of each frame before the sink takes it.
///
/// A line without colour filters (a plain conversion) is fused only into 8-bit I420 or YV12 with
/// the matched chroma filter, where it saves the conversion pass.
///
/// Anything else runs the nodes as usual: no colour filter into any other packing, fan-out to a
/// second target that is not an observer,
/// a filter that is not a colour operation (blur, a custom shader; a crop or scale that changes
/// the picture: one that keeps it, `PassesOnUnchanged`, is skipped), a piece that
/// samples a texture (lookup table), a `.full`-precision chain, a turned picture, RGB input, input
/// or output of more than 8 bits, sizes whose rows do not fit whole texels (width % 8, height % 4).
/// The line is walked once per wiring (`GraphPlan`), so the graph can be rewired while frames
/// flow; this is what one picture on it costs.
struct FusedConversionPlan: Sendable {
    /// The line: its colour operations, the sink it ends in, the observers beside it.
    let line: FusableLine
    /// The sink the line ends in.
    var output: any PackingSink { line.sink }
    /// Whether the output is gray: only Y' is computed.
    let monochrome: Bool

    /// How many chroma columns four neighbouring pixels of the source interpolate between (2:1
    /// subsampled across: 3 co-sited, 4 centred); nil reads chroma pixel by pixel (4:4:4).
    let sharedChromaColumns: Int?

    /// Where the picture's chroma sits (a sink may keep it, or site its own).
    let pictureChromaLocation: ChromaLocation

    /// How the uploaded chroma texture is laid out (`PlaneTextureLayout.chromaDefines`).
    let chromaDefines: [(String, Int)]

    /// Whether the Y' plane is uploaded as RGBA8 texels of four samples, read with one fetch for
    /// the four pixels a fragment of the fused Y' pass converts (`FUSED_LUMA_QUADS`): with shared
    /// chroma columns, when that pass runs (gray output, or a sink packing with `MatchedPack420`).
    var readsLumaQuads: Bool { sharedChromaColumns != nil && (monochrome || MatchedPack420.takes(line.sink.packing)) }

    /// The fused form of `line` for `buffer` (turned by `orientation`), or why `buffer` cannot take
    /// it: the line was walked when the graph was wired (`GraphPlan`); what is checked here is the
    /// picture and the sink's packing now.
    static func make(line: FusableLine, buffer: PixelBuffer, orientation: Orientation,
                     in context: isolated RenderContext) -> Result<FusedConversionPlan, NotFused> {
        guard orientation == .up else { return .failure(NotFused(reason: "the picture is turned (\(orientation))")) }
        if let changing = line.passing.first(where: {
            !$0.passesOnUnchanged(width: buffer.width, height: buffer.height, colorSpace: buffer.colorSpace)
        }) {
            return .failure(NotFused(reason: "\(NodeFailure.name(of: changing)) changes a \(buffer.width)x\(buffer.height) picture"))
        }
        guard !buffer.format.isHighDepth else {
            return .failure(NotFused(reason: "the input has \(buffer.format.bitsPerSample)-bit samples (worked on in half floats)"))
        }
        guard PlaneTextureLayout(buffer.format).shaderLayout == 1 else {
            return .failure(NotFused(reason: "the input is \(buffer.format), not planar Y'CbCr with interleaved or separate chroma"))
        }
        if let packing = line.sink.packing, packing.format.isHighDepth {
            return .failure(NotFused(reason: "\(NodeFailure.name(of: line.sink)) packs \(packing.format) (worked on in half floats)"))
        }
        guard buffer.width % 8 == 0, buffer.height % 4 == 0 else {
            return .failure(NotFused(reason: "\(buffer.width)x\(buffer.height) is not a multiple of 8x4"))
        }
        if line.operations.isEmpty {
            // A plain conversion saves a pass only where the sink packs with MatchedPack420.
            guard MatchedPack420.takes(line.sink.packing) else {
                return .failure(NotFused(reason: "no colour filter before \(NodeFailure.name(of: line.sink)) "
                                         + "(a plain conversion packs as usual)"))
            }
        }
        guard (try? line.operations.allSatisfy({ try $0.colorTextures(in: context).isEmpty })) == true else {
            return .failure(NotFused(reason: "a colour filter of the line samples a texture (a lookup table)"))
        }
        return .success(FusedConversionPlan(line: line, buffer: buffer))
    }

    private init(line: FusableLine, buffer: PixelBuffer) {
        self.line = line
        // Gray output packs its Y' rows in one pass into I420 or YV12; into any other format
        // (RGBA included) it takes the colour path.
        let packsGray = line.sink.packing.map { [.i420, .yv12].contains($0.format) } ?? false
        monochrome = packsGray && (line.operations.last?.producesMonochrome ?? false)
        let layout = PlaneTextureLayout(buffer.format)
        chromaDefines = layout.chromaDefines
        pictureChromaLocation = buffer.chromaLocation
        sharedChromaColumns = layout.chromaDivisor.x != 2 ? nil
            : buffer.chromaLocation == .center ? 4 : 3
    }

    /// What the fused passes do, for `--explain`.
    var summary: String {
        let pieces = (["Y'CbCr"] + line.pieces.map(\.name)).joined(separator: " → ")
        if monochrome {
            return "1 pass from the uploaded planes: \(pieces) → the Y' rows of \(NodeFailure.name(of: output))'s packed frame"
        }
        if MatchedPack420.takes(output.packing) {
            // Chroma the two passes do not take: the sink packs the coloured RGBA picture.
            guard MatchedPack420.takes(sitedAt: output.packingChromaLocation ?? pictureChromaLocation) else {
                return "1 pass from the uploaded planes: \(pieces) → RGBA, then \(NodeFailure.name(of: output)) packs it "
                    + "(chroma sited top left, which the two-pass pack does not take)"
            }
            return "1 pass from the uploaded planes: \(pieces) → \(NodeFailure.name(of: output))'s Y' plane and "
                + "chroma averages, then 1 pass for both chroma planes"
        }
        return "1 pass from the uploaded planes: \(pieces) → RGBA, then \(NodeFailure.name(of: output)) "
            + (output.packing == nil ? "reads it back" : "packs it")
    }

    /// Uploads `buffer` and hands the sink the line's picture: a `FusedLinePicture` the sink packs
    /// with the fused pass (gray output, and colour output into matched 8-bit 4:2:0), else the
    /// converted, coloured RGBA frame made in one pass (the sink packs it as usual). Failures of the
    /// pass or the sink are reported as the sink's.
    func run(_ buffer: PixelBuffer, in context: isolated RenderContext) throws {
        let layout = PlaneTextureLayout(buffer.format)
        let planes = try context.uploadPlanes(of: buffer, layout: layout, lumaQuads: readsLumaQuads)
        for node in line.passing { node.passedOnUnchanged() }
        for (observer, _) in line.observers {
            do {
                try observer.observe(width: buffer.width, height: buffer.height, timestamp: buffer.timestamp, in: context)
            } catch {
                context.report(error, from: observer)
            }
        }
        do {
            if monochrome || MatchedPack420.takes(output.packing) {
                try output.receive(FusedLinePicture(plan: self, planes: planes, buffer: buffer, layout: layout), in: context)
            } else {
                try output.receive(try coloredPicture(planes: planes, buffer: buffer, layout: layout, in: context), at: 0, in: context)
            }
        } catch {
            context.report(error, from: output)
        }
    }

    /// The converted, coloured RGBA picture of `buffer` in one pass.
    func coloredPicture(planes: [TextureFrame], buffer: PixelBuffer, layout: PlaneTextureLayout,
                        in context: isolated RenderContext) throws -> TextureFrame {
        let picture = try context.makeFrame(width: buffer.width, height: buffer.height, timestamp: buffer.timestamp,
                                            colorSpace: buffer.colorSpace, chromaLocation: buffer.chromaLocation)
        let program = try program(format: .i420, chromaLocation: buffer.chromaLocation, chromaDownsampling: .average,
                                  in: context)
        try context.draw(program, into: picture, inputs: planes) { program in
            setUniforms(of: program, buffer: buffer, layout: layout, format: .i420, colorSpace: buffer.colorSpace)
        }
        picture.markOpaque(true)  // converted from Y'CbCr
        return picture
    }

    /// The first pass of `MatchedPack420` with the line fused in: Y' and the chroma averages of
    /// 4:2:0 sited at `chromaLocation`, straight from the uploaded planes.
    func packProgram(chromaLocation: ChromaLocation, in context: isolated RenderContext) throws -> ShaderProgram {
        var defines = MatchedPack420.defines(pass: 1, chromaLocation: chromaLocation) + chromaDefines
        if let columns = sharedChromaColumns { defines.append(("FUSED_CHROMA_COLUMNS", columns)) }
        if readsLumaQuads { defines.append(("FUSED_LUMA_QUADS", 1)) }
        return try context.program(named: FusedConversionShader.programName(chain: line.chainName, defines: defines),
                                   fragment: FusedConversionShader.fragmentSource(for: line.pieces, defines: defines))
    }

    /// The plan's fused program: gray output → the Y' rows of the packed frame (`format`, sited at
    /// `chromaLocation`); colour output → the converted, coloured RGBA picture. Its source is
    /// generated only the first time the context meets its name.
    func program(format: PixelFormat, chromaLocation: ChromaLocation, chromaDownsampling: ChromaDownsampling,
                 in context: isolated RenderContext) throws -> ShaderProgram {
        var defines = chromaDefines + (readsLumaQuads ? [("FUSED_LUMA_QUADS", 1)] : [])
        if monochrome {
            defines += [("PLANE_KIND", Int(RenderContext.PlaneKind.luma.rawValue)), ("CHROMA_DIVISOR_X", 2), ("CHROMA_DIVISOR_Y", 2),
                       ("CHROMA_SITING", RenderContext.sitingDefine(chromaLocation)),
                       ("CHROMA_FILTER", chromaDownsampling.shaderDefine)]
            if let columns = sharedChromaColumns { defines.append(("FUSED_CHROMA_COLUMNS", columns)) }
        }
        return try context.program(named: FusedConversionShader.programName(chain: line.chainName, defines: defines),
                                   fragment: FusedConversionShader.fragmentSource(for: line.pieces, defines: defines))
    }

    /// Sets the fused program's uniforms: the planes, the picture size, the output matrix and the
    /// colour operations' values.
    func setUniforms(of program: ShaderProgram, buffer: PixelBuffer, layout: PlaneTextureLayout,
                     format: PixelFormat, colorSpace: ColorSpace) {
        let conversion = YCbCrConversion.fromRGB(colorSpace)
        RenderContext.setPlaneUniforms(of: program, for: buffer, layout: layout)
        program.set(.vec2([Float(buffer.width), Float(buffer.height)]), for: "pictureSize")
        program.set(.vec2([Float(1 / Double(buffer.width)), Float(1 / Double(buffer.height))]), for: "inversePictureSize")
        program.set(.int(format == .yv12 ? 1 : 0), for: "swapOutputChroma")
        program.set(.mat3(conversion.matrix), for: "yuvMatrix")
        program.set(.vec3(conversion.offset), for: "yuvOffset")
        for (index, operation) in line.operations.enumerated() {
            let prefix = operation.colorPiece.prefix(at: index)
            for (name, value) in operation.colorUniforms { program.set(value, for: prefix + name) }
        }
    }
}
