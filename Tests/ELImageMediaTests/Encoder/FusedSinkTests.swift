import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Pass fusion into the readback sinks: a Y'CbCr source → colour filters → a Y4M `FileOutput` or
/// the `VideoEncoder` packs the line's picture with the fused pass (gray: one draw a frame) and
/// writes what the separate passes write, through its usual fence → queue → worker path.
@Suite("Fused conversion into file and encoder sinks", .closesContexts)
struct FusedSinkTests {
    /// The draws `frames` took through `names` into `sink` (made by `makeSink`), fused or not.
    static func run(_ frames: [PixelBuffer], through names: [String], fusing: Bool, into sink: any ImageInput,
                    context: RenderContext) async throws -> Int {
        let input = RawDataInput(fusingPasses: fusing)
        var last: any ImageOutput = input
        for node in FusionFixtures.filters(names) {
            last.addTarget(node)
            last = node
        }
        last.addTarget(sink)
        let before = await context.drawCallCount
        for frame in frames { try await input.process(frame, on: context) }
        return await context.drawCallCount - before
    }

    @Test("Y4M file: fused equals the separate passes within one level; gray takes one draw a frame",
          arguments: [["brightness", "grayscale"], ["grayscale"], ["brightness", "contrast"]])
    func y4m(names: [String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frames = try FusionFixtures.frames(.bt709)
        var files: [[PixelBuffer]] = []
        var draws: [Int] = []
        for fusing in [false, true] {
            let path = folder.path("out-\(fusing).y4m")
            let output = try FileOutput.y4m(path: path, frameRate: 25)
            draws.append(try await Self.run(frames, through: names, fusing: fusing, into: output, context: context))
            #expect(try await output.finish() == frames.count)
            files.append(try Y4MReader.readAll(path: path))
        }
        let monochrome = names.last == "grayscale"
        // Colour: Y' and the chroma averages from the uploaded planes, then both chroma planes.
        #expect(draws[1] == frames.count * (monochrome ? 1 : 2), "fused: \(draws[1]) draws, separate: \(draws[0])")
        #expect(draws[0] > draws[1])
        #expect(files[0].count == frames.count && files[1].count == frames.count)
        for (separate, fused) in zip(files[0], files[1]) {
            #expect(separate.format == fused.format && separate.chromaLocation == fused.chromaLocation)
            #expect(separate.colorSpace == fused.colorSpace)
            let worst = zip(separate.data, fused.data).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(names): largest difference \(worst)")
            if monochrome { #expect(fused.data[(fused.width * fused.height)...].allSatisfy { $0 == 128 }) }
        }
    }

    @Test("Raw RGBA file: the fused line converts and colours in one draw a frame (gray too), equal to the separate passes within one level",
          arguments: [["brightness", "grayscale"], ["grayscale"], ["brightness", "contrast"], ["saturation"]])
    func rawRGBA(names: [String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frames = try FusionFixtures.frames(.bt709)
        var files: [[UInt8]] = []
        var draws: [Int] = []
        for fusing in [false, true] {
            let path = folder.path("out-\(fusing).rgba")
            let output = try FileOutput.rawRGBA(path: path)
            draws.append(try await Self.run(frames, through: names, fusing: fusing, into: output, context: context))
            #expect(try await output.finish() == frames.count)
            files.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        // Separate: the conversion, then the nodes' recipe in one pass; fused: one pass a frame,
        // read back as it is.
        #expect(draws[1] == frames.count, "fused: \(draws[1]) draws, separate: \(draws[0])")
        #expect(draws[0] == frames.count * 2)
        let first = try #require(frames.first)
        #expect(files[1].count == frames.count * first.width * first.height * 4 && files[0].count == files[1].count)
        let worst = zip(files[0], files[1]).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= 1, "\(names): largest difference \(worst)")
    }

    @Test("Encoder: a fused gray line records one draw a frame; ffmpeg decodes every frame with neutral chroma")
    func encoder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frames = try FusionFixtures.frames(.bt709)
        let path = folder.path("gray.mp4")
        let encoder = try VideoEncoder(settings: EncoderSettings())
        try encoder.start(recordingTo: path)
        let draws = try await Self.run(frames, through: ["brightness", "grayscale"], fusing: true, into: encoder, context: context)
        try await encoder.finish()
        #expect(draws == frames.count, "one fused draw a frame, got \(draws)")
        #expect(try EncoderFixtures.decodedFrameCount(path) == frames.count)
        let decoded = try EncoderFixtures.decode(path, pixelFormat: "yuv420p")
        let (luma, chroma) = (frames[0].width * frames[0].height, frames[0].width * frames[0].height / 2)
        #expect(decoded.count == frames.count * (luma + chroma))
        for index in frames.indices {
            let start = decoded.startIndex + index * (luma + chroma)
            let planeValues = decoded[(start + luma)..<(start + luma + chroma)]
            #expect(planeValues.allSatisfy { abs(Int($0) - 128) <= 2 }, "frame \(index): chroma not neutral")
            let lumaValues = decoded[start..<(start + luma)]
            #expect(Set(lumaValues).count > 16, "frame \(index): the picture's Y' is there")
        }
    }

    @Test("elimage run clip.y4m --filter grayscale -o out.y4m runs the fused pass: every frame, gray, at the input's rate")
    func commandLine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m"), output = folder.path("out.y4m"), shaders = folder.path("shaders")
        try writeTestPattern(to: clip, rate: "30", frames: 6)
        let result = try await BuiltProgram(name: "elimage").run(["run", clip, "--filter", "grayscale", "-o", output],
                                                                  environment: ["ELIMAGE_DUMP_SHADERS": shaders])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("wrote 6 frames") && result.output.contains("0 duplicated, 0 dropped"), "\(result.output)")
        let dumped = try FileManager.default.contentsOfDirectory(atPath: shaders)
        #expect(dumped.contains { $0.hasPrefix("yuv_fused[grayscale]") }, "no fused program among \(dumped)")
        let frames = try Y4MReader.readAll(path: output)
        #expect(frames.count == 6)
        #expect(try String(decoding: Data(contentsOf: URL(fileURLWithPath: output)).prefix(60), as: UTF8.self).contains("F30:1"))
        for frame in frames { #expect(frame.data[(frame.width * frame.height)...].allSatisfy { $0 == 128 }) }
    }
}
