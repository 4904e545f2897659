import CGLES

/// Pass fusion across the graph: Y'CbCr planes → colour filters → a Y'CbCr sink, in one pass.
///
/// When a `RawDataInput` gets a Y'CbCr `PixelBuffer` and its graph is a straight line of per-pixel
/// colour nodes (`ColorOperation` filters such as `Grayscale` or `Brightness`, `ColorChain`s,
/// `FilterGroup`s made of them) ending in one `YUVDataOutput` that writes I420 or YV12, the plan
/// runs the whole line as one fragment pass (`FusedConversionShader`) that reads the uploaded
/// planes and writes the packed frame the sink reads back: no RGBA frame in between. Gray output
/// (the last operation `producesMonochrome`) computes only the Y' rows and clears the chroma rows
/// to the neutral value. The result is the separate passes' result (same arithmetic, 8-bit
/// rounding where they store frames); the chroma average reads exact pixels where the separate
/// pack reads bilinearly, within one level.
///
/// Anything else runs the nodes as usual: fan-out (two targets anywhere), a filter that is not a
/// colour operation (blur, scale, crop, a custom shader), a piece that samples a texture (lookup
/// table), a `.full`-precision chain, a turned picture, RGB input, other output formats, sizes
/// whose rows do not fit whole texels (width % 8, height % 4), and the matched chroma filter on
/// colour output (its 7-tap filter would convert every pixel dozens of times).
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
                guard [.i420, .yv12].contains(sink.format), buffer.width % 8 == 0, buffer.height % 4 == 0,
                      monochrome || sink.chromaDownsampling == .average,
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

    /// The shaders of the plan's passes for output `format`, siting and colour space: Y' rows, then
    /// (colour output) the chroma rows.
    func programs(for target: PixelBuffer) -> [(kind: RenderContext.PlaneKind, name: String, source: String)] {
        let kinds: [RenderContext.PlaneKind] = monochrome ? [.luma] : [.luma, .wholeFrameChroma]
        let pieces = operations.map(\.colorPiece)
        return kinds.map { kind in
            var defines = [("PLANE_KIND", Int(kind.rawValue)), ("CHROMA_DIVISOR_X", 2), ("CHROMA_DIVISOR_Y", 2),
                           ("CHROMA_SITING", RenderContext.sitingDefine(target.chromaLocation)),
                           ("CHROMA_FILTER", output.chromaDownsampling.shaderDefine)]
            if kind == .luma, let columns = sharedChromaColumns {
                defines.append(("FUSED_CHROMA_COLUMNS", columns))
                if readsLumaQuads { defines.append(("FUSED_LUMA_QUADS", 1)) }
            }
            return (kind, FusedConversionShader.programName(for: pieces, defines: defines),
                    FusedConversionShader.fragmentSource(for: pieces, defines: defines))
        }
    }

    private func pack(_ planes: [TextureFrame], of buffer: PixelBuffer, layout: PlaneTextureLayout,
                      as target: PixelBuffer, in context: isolated RenderContext) throws -> PackedPlanes {
        let (width, height) = (buffer.width, buffer.height)
        let conversion = YCbCrConversion.fromRGB(target.colorSpace)
        let packed = try context.makeFrame(width: width / 4, height: height * 3 / 2, filtering: .nearest,
                                           timestamp: buffer.timestamp, colorSpace: target.colorSpace)
        if monochrome {  // gray: chroma is the constant offset
            context.clearRows(height..<packed.height, of: packed, to: min(max(conversion.offset.y, 0), 1))
        }
        var uniforms: [String: UniformValue] = [:]
        for (index, operation) in operations.enumerated() {
            let prefix = operation.colorPiece.prefix(at: index)
            for (name, value) in operation.colorUniforms { uniforms[prefix + name] = value }
        }
        for (kind, name, source) in programs(for: target) {
            let program = try context.program(named: name, fragment: source)
            let rows = kind == .luma ? 0..<height : height..<packed.height
            try context.draw(program, into: packed, inputs: planes, rows: rows) { program in
                RenderContext.setPlaneUniforms(of: program, for: buffer, layout: layout)
                program.set(.vec2([Float(width), Float(height)]), for: "pictureSize")
                program.set(.vec2([Float(1 / Double(width)), Float(1 / Double(height))]), for: "inversePictureSize")
                program.set(.int(target.format == .yv12 ? 1 : 0), for: "swapOutputChroma")
                program.set(.mat3(conversion.matrix), for: "yuvMatrix")
                program.set(.vec3(conversion.offset), for: "yuvOffset")
                for (name, value) in uniforms { program.set(value, for: name) }
            }
        }
        var result = PackedPlanes(textures: [packed], format: target.format, width: width, height: height,
                                  colorSpace: target.colorSpace, chromaLocation: target.chromaLocation)
        result.isWholeFrame = true
        return result
    }
}
