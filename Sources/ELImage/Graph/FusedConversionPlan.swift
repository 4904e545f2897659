import CGLES

/// Pass fusion across the graph: Y'CbCr planes → colour filters → a Y'CbCr sink, in fewer passes.
///
/// When a `RawDataInput` gets a Y'CbCr `PixelBuffer` and its graph is a straight line of per-pixel
/// colour nodes (`ColorOperation` filters such as `Grayscale` or `Brightness`, `ColorChain`s,
/// `FilterGroup`s made of them) ending in one `YUVDataOutput` that writes I420 or YV12, the plan
/// runs the line as generated passes (`FusedConversionShader`) that read the uploaded planes:
/// - gray output (the last operation `producesMonochrome`): ONE pass that writes the Y' rows of the
///   packed frame the sink reads back (no RGBA frame in between); the chroma rows are cleared to
///   the neutral value;
/// - colour output: one pass converting and colouring into an RGBA picture, then the ordinary pack
///   (two passes instead of three). A single pass to Y'CbCr would convert every pixel again for
///   each chroma sample's filter taps (6 per sample): measured twice as slow as the separate passes
///   on llvmpipe.
/// The result is the separate passes' result (same arithmetic, 8-bit rounding where they store
/// frames, with the same expressions), within one level where the GL's own rounding differs.
///
/// Anything else runs the nodes as usual: no colour filter at all, fan-out (two targets anywhere),
/// a filter that is not a colour operation (blur, scale, crop, a custom shader), a piece that
/// samples a texture (lookup table), a `.full`-precision chain, a turned picture, RGB input, other
/// output formats, sizes whose rows do not fit whole texels (width % 8, height % 4).
/// The plan is made again for every frame, so the graph can be rewired while frames flow.
struct FusedConversionPlan {
    /// The colour operations, first to last.
    let operations: [any ColorOperation]
    /// The sink the line ends in.
    let output: YUVDataOutput
    /// Whether the output is gray: only Y' is computed.
    let monochrome: Bool

    /// How many chroma columns four neighbouring pixels of the source interpolate between (2:1
    /// subsampled across: 3 co-sited, 4 centred); nil reads chroma pixel by pixel (4:4:4).
    let sharedChromaColumns: Int?

    /// Whether the Y' plane is uploaded as RGBA8 texels of four samples, read with one fetch per
    /// packed texel: gray output with shared chroma columns (the only pass is the Y' pass).
    var readsLumaQuads: Bool { monochrome && sharedChromaColumns != nil }

    /// The plan for `buffer` (turned by `orientation`) sent to `targets`, or nil when the graph
    /// after them cannot be fused.
    init?(targets: OutputTargets, buffer: PixelBuffer, orientation: Orientation, in context: isolated RenderContext) {
        guard orientation == .up, PlaneTextureLayout(buffer.format).shaderLayout == 1 else { return nil }
        var operations: [any ColorOperation] = []
        var connections = targets.all
        while true {
            guard connections.count == 1, let next = connections.first, next.index == 0,
                  operations.count < 256 else { return nil }
            switch next.target {
            case let sink as YUVDataOutput:
                let monochrome = operations.last?.producesMonochrome ?? false
                guard !operations.isEmpty, [.i420, .yv12].contains(sink.format), buffer.width % 8 == 0, buffer.height % 4 == 0,
                      (try? operations.allSatisfy({ try $0.colorTextures(in: context).isEmpty })) == true
                else { return nil }
                self.operations = operations
                output = sink
                self.monochrome = monochrome
                sharedChromaColumns = PlaneTextureLayout(buffer.format).chromaDivisor.x != 2 ? nil
                    : buffer.chromaLocation == .center ? 4 : 3
                return
            case let chain as ColorChain where chain.precision == .matchingSeparatePasses:
                operations += chain.operations
                connections = chain.targets
            case let group as FilterGroup:
                guard let inner = group.fusableOperations else { return nil }
                operations += inner
                connections = group.targets
            case let operation as any ColorOperation & ImageOutput:
                operations.append(operation)
                connections = operation.targets
            default:
                return nil
            }
        }
    }

    /// Uploads `buffer`, runs the fused pass into a packed I420/YV12 target and hands it, read
    /// back, to the sink. Failures of the pass or the readback are reported as the sink's.
    func run(_ buffer: PixelBuffer, in context: isolated RenderContext) throws {
        let layout = PlaneTextureLayout(buffer.format)
        let planes = try context.uploadPlanes(of: buffer, layout: layout, lumaQuads: readsLumaQuads)
        do {
            try output.produce(width: buffer.width, height: buffer.height, colorSpace: buffer.colorSpace,
                               chromaLocation: buffer.chromaLocation) { target in
                let packed = try pack(planes, of: buffer, layout: layout, as: target, in: context)
                try packed.read(into: &target)
            }
        } catch {
            context.report(error, from: output)
        }
    }

    /// The plan's fused program for `target`: gray output → the Y' rows of the packed frame; colour
    /// output → the converted, coloured RGBA picture for the ordinary pack. Its source is generated
    /// only the first time the context meets its name.
    func program(for target: PixelBuffer, in context: isolated RenderContext) throws -> ShaderProgram {
        let pieces = operations.map(\.colorPiece)
        var defines: [(String, Int)] = []
        if monochrome {
            defines = [("PLANE_KIND", Int(RenderContext.PlaneKind.luma.rawValue)), ("CHROMA_DIVISOR_X", 2), ("CHROMA_DIVISOR_Y", 2),
                       ("CHROMA_SITING", RenderContext.sitingDefine(target.chromaLocation)),
                       ("CHROMA_FILTER", output.chromaDownsampling.shaderDefine)]
            if let columns = sharedChromaColumns {
                defines.append(("FUSED_CHROMA_COLUMNS", columns))
                if readsLumaQuads { defines.append(("FUSED_LUMA_QUADS", 1)) }
            }
        }
        return try context.program(named: FusedConversionShader.programName(for: pieces, defines: defines),
                                   fragment: FusedConversionShader.fragmentSource(for: pieces, defines: defines))
    }

    private func pack(_ planes: [TextureFrame], of buffer: PixelBuffer, layout: PlaneTextureLayout,
                      as target: PixelBuffer, in context: isolated RenderContext) throws -> PackedPlanes {
        let (width, height) = (buffer.width, buffer.height)
        let conversion = YCbCrConversion.fromRGB(target.colorSpace)
        var uniforms: [String: UniformValue] = [:]
        for (index, operation) in operations.enumerated() {
            let prefix = operation.colorPiece.prefix(at: index)
            for (name, value) in operation.colorUniforms { uniforms[prefix + name] = value }
        }
        let program = try program(for: target, in: context)
        let setUniforms = { (program: ShaderProgram) in
            RenderContext.setPlaneUniforms(of: program, for: buffer, layout: layout)
            program.set(.vec2([Float(width), Float(height)]), for: "pictureSize")
            program.set(.vec2([Float(1 / Double(width)), Float(1 / Double(height))]), for: "inversePictureSize")
            program.set(.int(target.format == .yv12 ? 1 : 0), for: "swapOutputChroma")
            program.set(.mat3(conversion.matrix), for: "yuvMatrix")
            program.set(.vec3(conversion.offset), for: "yuvOffset")
            for (name, value) in uniforms { program.set(value, for: name) }
        }
        guard monochrome else {  // colour: one pass to the coloured picture, then the ordinary pack
            let picture = try context.makeFrame(width: width, height: height, timestamp: buffer.timestamp,
                                                colorSpace: buffer.colorSpace, chromaLocation: buffer.chromaLocation)
            try context.draw(program, into: picture, inputs: planes, setUniforms: setUniforms)
            return try context.packPlanes(of: picture, as: target.format, colorSpace: target.colorSpace,
                                          chromaLocation: target.chromaLocation, chromaDownsampling: output.chromaDownsampling)
        }
        let packed = try context.makeFrame(width: width / 4, height: height * 3 / 2, filtering: .nearest,
                                           timestamp: buffer.timestamp, colorSpace: target.colorSpace)
        context.clearRows(height..<packed.height, of: packed, to: min(max(conversion.offset.y, 0), 1))  // gray: constant chroma
        try context.draw(program, into: packed, inputs: planes, rows: 0..<height, setUniforms: setUniforms)
        var result = PackedPlanes(textures: [packed], format: target.format, width: width, height: height,
                                  colorSpace: target.colorSpace, chromaLocation: target.chromaLocation)
        result.isWholeFrame = true
        return result
    }
}
