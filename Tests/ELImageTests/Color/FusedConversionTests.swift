import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Pass fusion across the graph (`FusedConversionPlan`): a Y'CbCr source → colour filters →
/// `YUVDataOutput` runs as one pass and writes what the separate passes write; other graph shapes
/// run the separate passes.
@Suite("Fused conversion across the graph", .closesContexts)
struct FusedConversionTests {
    static func frames(_ colorSpace: ColorSpace) throws -> [PixelBuffer] { try FusionFixtures.frames(colorSpace) }
    static func filters(_ names: [String]) -> [any ImageOutput & ImageInput] { FusionFixtures.filters(names) }

    /// `frame` through `nodes` (wired one after the other, or as one `FilterGroup`) into an I420
    /// `YUVDataOutput` siting chroma at `siting` (nil: as the frame); the buffer written and the
    /// draws it took. `observe` adds a second sink after the last node (fan-out).
    static func run(_ frame: PixelBuffer, through names: [String], grouped: Bool = false, fusing: Bool,
                    observe: Bool = false, siting: ChromaLocation? = .left,
                    context: RenderContext) async throws -> (buffer: PixelBuffer, draws: Int) {
        let result = Locked<PixelBuffer?>(nil)
        let input = RawDataInput(fusingPasses: fusing)
        let output = try YUVDataOutput(format: .i420, chromaLocation: siting) { buffer in result.withLock { $0 = buffer } }
        var last: any ImageOutput = input
        let nodes = filters(names)
        if grouped, !nodes.isEmpty {
            let group = try FilterGroup(nodes)
            input.addTarget(group)
            last = group
        } else {
            for node in nodes {
                last.addTarget(node)
                last = node
            }
        }
        last.addTarget(output)
        if observe { last.addTarget(try YUVDataOutput(format: .i420) { _ in }) }
        let before = await context.drawCallCount
        try await input.process(frame, on: context)
        let draws = await context.drawCallCount - before
        #expect(try await output.finish() == 1)
        return (try #require(result.withLock { $0 }), draws)
    }

    static let colorSpaces: [ColorSpace] = [.bt601, ColorSpace(matrix: .bt601, range: .full),
                                            .bt709, ColorSpace(matrix: .bt709, range: .full)]
    static let chains: [[String]] = [[], ["grayscale"], ["brightness", "grayscale"], ["brightness"],
                                     ["brightness", "contrast", "saturation"]]

    @Test("Fused equals the separate passes within one level (601/709 x full/limited, 0-3 filters, gray or colour)",
          arguments: colorSpaces.indices, chains.indices)
    func fusedMatchesSeparate(space: Int, chain: Int) async throws {
        let context = try TestContexts.make()
        for (number, frame) in try Self.frames(Self.colorSpaces[space]).enumerated() {
            for grouped in [false, true] {
                try await Self.expectFusedMatchesSeparate(frame, number: number, through: Self.chains[chain],
                                                          grouped: grouped, context: context)
            }
        }
    }

    @Test("Centred chroma (JPEG siting, as in ffmpeg's Y4M files): the fused passes equal the separate passes, gray or colour",
          arguments: colorSpaces.indices, [["grayscale"], ["brightness", "grayscale"], ["brightness", "saturation"], []])
    func centredChroma(space: Int, names: [String]) async throws {
        let context = try TestContexts.make()
        for (number, frame) in try Self.frames(Self.colorSpaces[space]).enumerated() {
            var frame = frame
            frame.chromaLocation = .center
            for siting in [.left, nil] as [ChromaLocation?] {  // resited, and kept centred
                try await Self.expectFusedMatchesSeparate(frame, number: number, through: names, grouped: false,
                                                          siting: siting, context: context)
            }
        }
    }

    @Test("Top-left chroma (C420paldv), which the two-pass pack does not take: the coloured picture is made in one pass from the uploaded planes and packed as usual, equal to the separate passes",
          arguments: [["brightness"], ["brightness", "contrast", "saturation"]])
    func topLeftChroma(names: [String]) async throws {
        let context = try TestContexts.make()
        for (number, frame) in try Self.frames(.bt709).enumerated() {
            var frame = frame
            frame.chromaLocation = .topLeft
            // One pass to RGBA, then rgba_to_yuv's three (Y', the averages at every site, both chroma planes).
            try await Self.expectFusedMatchesSeparate(frame, number: number, through: names, grouped: false,
                                                      siting: nil, fusedDraws: 4, context: context)
        }
    }

    @Test("A crop of the whole picture and a scale to its own size on the line are skipped: still fused (colour or none), equal to the separate passes",
          arguments: [["whole crop"], ["brightness", "same-size scale"], ["whole crop", "saturation", "same-size scale"]])
    func passingOn(names: [String]) async throws {
        let context = try TestContexts.make()
        for (number, frame) in try Self.frames(.bt709).enumerated() {
            try await Self.expectFusedMatchesSeparate(frame, number: number, through: names, grouped: false, context: context)
        }
    }

    @Test("Tone mapping of an SDR picture is skipped by a fused line, which still counts the frame as passed through")
    func toneMappingSDR() async throws {
        let context = try TestContexts.make()
        let frame = try #require(try Self.frames(.bt709).first)
        let input = RawDataInput()
        let toneMapping = ToneMapping()
        let result = Locked<PixelBuffer?>(nil)
        let output = try YUVDataOutput(format: .i420) { buffer in result.withLock { $0 = buffer } }
        input --> toneMapping --> output
        let before = await context.drawCallCount
        try await input.process(frame, on: context)
        #expect(await context.drawCallCount - before == 2, "fused: Y' and the averages, then the chroma planes")
        #expect(try await output.finish() == 1)
        #expect(toneMapping.statistics == ToneMapping.Statistics(mapped: 0, passedThrough: 1))
        let plain = try await Self.run(frame, through: [], fusing: true, context: context)
        #expect(try #require(result.withLock { $0 }).data == plain.buffer.data)
        toneMapping.removeAllTargets()
        input.removeAllTargets()
    }

    @Test("A crop that cuts the picture is not skipped: the line runs the separate passes, byte for byte")
    func cuttingCrop() async throws {
        let context = try TestContexts.make()
        let frame = try #require(try Self.frames(.bt709).first)
        let fused = try await Self.run(frame, through: ["brightness", "cutting crop"], fusing: true, context: context)
        let separate = try await Self.run(frame, through: ["brightness", "cutting crop"], fusing: false, context: context)
        #expect(fused.buffer.data == separate.buffer.data)
        #expect(fused.draws == separate.draws)
        #expect((fused.buffer.width, fused.buffer.height) == (64, 32))
    }

    /// Runs `frame` through `names` fused and separately into chroma sited at `siting` and expects
    /// the same bytes within one level, and `fusedDraws` draws fused (by default: 1 for gray, 2 for
    /// colour).
    static func expectFusedMatchesSeparate(_ frame: PixelBuffer, number: Int, through names: [String], grouped: Bool,
                                           siting: ChromaLocation? = .left, fusedDraws: Int? = nil,
                                           context: RenderContext) async throws {
        let monochrome = names.last == "grayscale"
        let separate = try await run(frame, through: names, grouped: grouped, fusing: false, siting: siting, context: context)
        let fused = try await run(frame, through: names, grouped: grouped, fusing: true, siting: siting, context: context)
        #expect(fused.buffer.chromaLocation == (siting ?? frame.chromaLocation))
        #expect(fused.draws == fusedDraws ?? (monochrome ? 1 : 2),
                "gray: one pass (Y' rows); colour (or no filter): Y' and the chroma averages from the uploaded planes, then both chroma planes")
        let drawing = Self.filters(names).filter { node in
            (node as? any PassesOnUnchanged)?.passesOnUnchanged(width: frame.width, height: frame.height,
                                                                 colorSpace: frame.colorSpace) != true
        }
        // Separately: the conversion, then the nodes' recipe in one draw (inside the pack).
        #expect(separate.draws >= 1 + min(drawing.count, 1))
        let differences = zip(fused.buffer.data, separate.buffer.data).map { abs(Int($0) - Int($1)) }
        let luma = frame.width * frame.height
        let worst = differences.max() ?? 0
        let lumaChanged = differences[..<luma].filter { $0 > 0 }.count
        #expect(worst <= 1, "frame \(number), \(names), grouped \(grouped), \(frame.chromaLocation): largest difference \(worst)")
        // Where the separate passes store 8-bit frames, the GL's rounding and the fused pass's
        // differ on exact halves (measured: 1-2 % of Y' samples, by one level).
        #expect(lumaChanged * 100 <= 3 * luma, "frame \(number), \(names): \(lumaChanged) of \(luma) Y' samples differ by one")
        #expect(fused.buffer.colorSpace == separate.buffer.colorSpace)
        #expect(fused.buffer.timestamp == frame.timestamp)
        if monochrome { #expect(fused.buffer.data[luma...].allSatisfy { $0 == 128 }) }
    }

    @Test("Fan-out to a second sink, a blur in the chain, or a full-precision chain run the separate passes, byte for byte",
          arguments: ["fan-out", "blur", "full precision"])
    func fallback(shape: String) async throws {
        let context = try TestContexts.make()
        let frame = try #require(try Self.frames(.bt709).first)
        let names = shape == "blur" ? ["brightness", "blur", "grayscale"] : ["brightness", "contrast"]
        if shape == "full precision" {
            var buffers: [PixelBuffer] = []
            var draws: [Int] = []
            for fusing in [false, true] {
                let result = Locked<PixelBuffer?>(nil)
                let input = RawDataInput(fusingPasses: fusing)
                let output = try YUVDataOutput(format: .i420) { buffer in result.withLock { $0 = buffer } }
                input --> ColorChain([Brightness(0.08), Grayscale()], precision: .full) --> output
                let before = await context.drawCallCount
                try await input.process(frame, on: context)
                draws.append(await context.drawCallCount - before)
                try await output.finish()
                buffers.append(try #require(result.withLock { $0 }))
            }
            #expect(draws[0] == draws[1] && draws[0] >= 2)
            #expect(buffers[0].data == buffers[1].data)
            return
        }
        let separate = try await Self.run(frame, through: names, fusing: false, observe: shape == "fan-out", context: context)
        let fused = try await Self.run(frame, through: names, fusing: true, observe: shape == "fan-out", context: context)
        #expect(fused.draws == separate.draws && fused.draws >= 4, "\(fused.draws) vs \(separate.draws)")
        #expect(fused.buffer.data == separate.buffer.data)
    }

    @Test("Frame observers (counters) beside the line keep it fused and hear of every frame")
    func observers() async throws {
        let context = try TestContexts.make()
        let frames = try Self.frames(.bt709)
        let result = Locked<PixelBuffer?>(nil)
        let (atInput, atSink) = (FrameCounter(), FrameCounter())
        let input = RawDataInput()
        input.addTarget(atInput)
        let output = try YUVDataOutput(format: .i420) { buffer in result.withLock { $0 = buffer } }
        let group = try FilterGroup([Brightness(0.08), Grayscale()])
        input --> group --> output
        group.addTarget(atSink)
        let before = await context.drawCallCount
        for frame in frames { try await input.process(frame, on: context) }
        #expect(await context.drawCallCount - before == frames.count, "one fused draw a frame")
        #expect(atInput.count == frames.count && atSink.count == frames.count)
        #expect(try await output.finish() == frames.count)
        let separate = try await Self.run(try #require(frames.last), through: ["brightness", "grayscale"], grouped: true,
                                          fusing: false, context: context)
        let fused = try #require(result.withLock { $0 })
        #expect(zip(fused.data, separate.buffer.data).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test("The fused pass's shader is dumped (ELIMAGE_DUMP_SHADERS' folder), named after its chain")
    func shaderDump() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frame = try #require(try Self.frames(.bt709).first)
        let dump = folder.path("shaders")
        try await context.perform { $0.shaderDumpFolder = dump }  // this context only, as ELIMAGE_DUMP_SHADERS would
        _ = try await Self.run(frame, through: ["brightness", "grayscale"], fusing: true, context: context)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path("shaders"))
        let fused = try #require(names.first { $0.hasPrefix("yuv_fused[brightness,grayscale]") }, "\(names)")
        let source = try String(contentsOfFile: folder.path("shaders/" + fused), encoding: .utf8)
        #expect(source.contains("Y'CbCr planes -> brightness -> grayscale -> Y'CbCr"), "\(source.prefix(300))")
    }
}
