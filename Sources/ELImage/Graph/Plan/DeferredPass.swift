/// A filter's last draw, described rather than made: its shader, inputs and uniforms. A filter
/// whose one target is a sink packing 8-bit 4:2:0 with the matched chroma filter (a Y4M file, the
/// encoder, `YUVDataOutput` by default) hands it this instead of a frame
/// (`OutputTargets.deferringSink`); packing it runs the filter's shader inside `MatchedPack420`'s
/// first pass (`DeferredPassShader`), so the filter's output is never drawn as RGBA and no
/// separate RGBA→Y'CbCr pass runs. Packed any other way, or when its shader cannot be run so,
/// it is drawn as the frame it stands for and packed as usual.
struct DeferredPass: PackablePicture {
    let programName: String
    let fragmentShader: String
    /// The first input: it gives the output its timestamp, colour space and working format.
    let first: TextureFrame
    /// The inputs after `first`.
    let others: [TextureFrame]
    /// Sampled as `inputImageTexture`, `inputImageTexture2`, ...
    var inputs: [TextureFrame] { [first] + others }
    /// Textures on the units after `inputs`, with their sampler names.
    let extra: [SamplerTexture]
    let width: Int
    let height: Int
    let uniforms: [String: UniformValue]
    /// Whether the frame is gray (`SinglePassFilter.drawsMonochrome`): packed into I420 or YV12,
    /// the pass then runs inside the Y' pass of the gray pack, and chroma is the neutral value.
    let monochrome: Bool

    var timestamp: MediaTime { first.timestamp }
    var colorSpace: ColorSpace { first.colorSpace }
    var chromaLocation: ChromaLocation { first.chromaLocation }

    init(programName: String, fragmentShader: String, first: TextureFrame, others: [TextureFrame] = [],
         extra: [SamplerTexture] = [], width: Int, height: Int, uniforms: [String: UniformValue], monochrome: Bool = false) {
        self.programName = programName
        self.fragmentShader = fragmentShader
        self.first = first
        self.others = others
        self.extra = extra
        self.width = width
        self.height = height
        self.uniforms = uniforms
        self.monochrome = monochrome
    }

    /// Draws the frame the pass stands for.
    func render(in context: isolated RenderContext) throws -> TextureFrame {
        let output = try context.makeFrame(width: width, height: height, format: first.workingFormat,
                                           timestamp: first.timestamp, colorSpace: first.colorSpace,
                                           chromaLocation: first.chromaLocation)
        let program = try context.program(named: programName, fragment: fragmentShader)
        try context.draw(program, into: output, inputs: inputs + extra.map(\.frame)) { program in
            setUniforms(of: program)
        }
        output.markMonochrome(monochrome)
        return output
    }

    func packed(as format: PixelFormat, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
                chromaDownsampling: ChromaDownsampling, in context: isolated RenderContext) throws -> PackedPlanes {
        if monochrome {
            if first.workingFormat == .rgba8, GrayPack.applies(to: format, width: width, height: height),
               let program = grayPackProgram(chromaLocation: chromaLocation, chromaDownsampling: chromaDownsampling,
                                             in: context) {
                return try GrayPack.pack(format: format, width: width, height: height, timestamp: timestamp,
                                         colorSpace: colorSpace, chromaLocation: chromaLocation, program: program,
                                         inputs: inputs + extra.map(\.frame), setUniforms: setPackUniforms, in: context)
            }
        } else if first.workingFormat == .rgba8,
           MatchedPack420.applies(to: format, width: width, height: height, chromaLocation: chromaLocation,
                                  chromaDownsampling: chromaDownsampling),
           let program = packProgram(chromaLocation: chromaLocation, in: context) {
            return try MatchedPack420.pack(format: format, width: width, height: height, timestamp: timestamp,
                                           colorSpace: colorSpace, chromaLocation: chromaLocation, firstPass: program,
                                           inputs: inputs + extra.map(\.frame), setUniforms: setPackUniforms, in: context)
        }
        return try render(in: context).packed(as: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                                              chromaDownsampling: chromaDownsampling, in: context)
    }

    /// The filter's uniforms and the size of the picture the pack's pass runs it over
    /// (`deferredOutputSize`; in the gray pack also rgba_to_yuv.fsh's `pictureSize`).
    private func setPackUniforms(of program: ShaderProgram) {
        setUniforms(of: program)
        program.set(.vec2([Float(width), Float(height)]), for: "deferredOutputSize")
        if monochrome { program.set(.vec2([Float(width), Float(height)]), for: "pictureSize") }
    }

    private func setUniforms(of program: ShaderProgram) {
        for (name, value) in uniforms { program.set(value, for: name) }
        for (offset, texture) in extra.enumerated() {
            program.setSampler(texture.sampler, unit: inputs.count + offset)
        }
    }

    /// The filter's shader as the pack's first pass, compiled once per context; nil when the
    /// shader cannot be run so or did not compile so (remembered: the frames then draw as usual).
    private func packProgram(chromaLocation: ChromaLocation, in context: isolated RenderContext) -> ShaderProgram? {
        program(named: "pack_420(\(programName))[\(chromaLocation)]", in: context) {
            DeferredPassShader.packSource(for: fragmentShader, chromaLocation: chromaLocation)
        }
    }

    /// The filter's shader as the gray pack's Y' pass (rgba_to_yuv.fsh), as `packProgram`.
    private func grayPackProgram(chromaLocation: ChromaLocation, chromaDownsampling: ChromaDownsampling,
                                 in context: isolated RenderContext) -> ShaderProgram? {
        let defines = [("PLANE_KIND", Int(RenderContext.PlaneKind.luma.rawValue)),
                       ("CHROMA_SITING", RenderContext.sitingDefine(chromaLocation)),
                       ("CHROMA_FILTER", chromaDownsampling.shaderDefine)]
        return program(named: "rgba_to_yuv(\(programName))[luma]", in: context) {
            DeferredPassShader.grayPackSource(for: fragmentShader, defines: defines)
        }
    }

    /// The program `name` made from `source()`, compiled once per context; nil when there is no
    /// source or it did not compile (remembered).
    private func program(named name: String, in context: isolated RenderContext, source: () -> String?) -> ShaderProgram? {
        guard !context.unpackableShaders.contains(name) else { return nil }
        do {
            guard let source = source() else {
                context.unpackableShaders.insert(name)
                return nil
            }
            return try context.program(named: name, fragment: source)
        } catch {
            context.unpackableShaders.insert(name)
            return nil
        }
    }
}

/// Where a filter's last draw goes undone: the sink that packs it, and the observers beside it
/// that hear of the frame first (`OutputTargets.deferringSink()`).
struct DeferringTarget: Sendable {
    let sink: any PackingSink
    let observers: [(observer: any FrameObserver, index: Int)]

    /// The target below `targets` (a node's compiled plan): the one target that is not an
    /// observer, on input 0 (through a group's exit relay), a sink that packs; with the observers
    /// beside it. Nil when the targets are not that shape.
    static func derive(from targets: [GraphPlan.Stage]) -> DeferringTarget? {
        var observers: [(observer: any FrameObserver, index: Int)] = []
        var level = targets
        while true {
            var next: GraphPlan.Stage?
            for stage in level {
                if case .observer(let observer) = stage.role {
                    observers.append((observer, stage.index))
                } else if next == nil, stage.index == 0 {
                    next = stage
                } else {
                    return nil
                }
            }
            switch next?.role {
            case .relay?:
                guard let relay = next, !relay.repeated else { return nil }
                level = relay.targets
            case .packingSink(let sink)?:
                return DeferringTarget(sink: sink, observers: observers)
            default:
                return nil
            }
        }
    }

    /// Tells the observers of the frame, then hands `pass` to the sink. Failures are reported as
    /// theirs, never thrown (as `OutputTargets.deliver` does).
    func deliver(_ pass: DeferredPass, in context: isolated RenderContext) {
        for (observer, _) in observers {
            do {
                try observer.observe(width: pass.width, height: pass.height, timestamp: pass.timestamp, in: context)
            } catch {
                context.report(error, from: observer)
            }
        }
        do {
            try sink.receive(pass, in: context)
        } catch {
            context.report(error, from: sink)
        }
    }
}

extension OutputTargets {
    /// The target a filter may hand its last draw undone (`DeferredPass`): the one target that is
    /// not an observer, on input 0 (through a group's exit relay), packing 8-bit I420 or YV12 with
    /// the matched chroma filter now (`MatchedPack420.takes`); with the observers beside it.
    /// Read from the plan compiled for these outputs when they were last rewired: no walk.
    func deferringSink() -> DeferringTarget? {
        guard let target = plans.plan(for: self).deferring, MatchedPack420.takes(target.sink.packing) else { return nil }
        return target
    }
}
