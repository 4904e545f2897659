import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// The Y4M and raw RGBA file sinks, checked against what went in.
@Suite("File sinks: Y4M and raw RGBA", .closesContexts)
struct FileSinkTests {
    @Test("Y4M: ffmpeg reads back exactly the I420 planes that went in, with the range tag", arguments: [ColorRange.limited, .full])
    func y4m(range: ColorRange) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frames = try EncoderFixtures.pannedAstronaut(width: 160, height: 120, count: 12)
        let colorSpace = ColorSpace(matrix: .bt709, range: range)
        let path = folder.path("out.y4m")
        let y4m = try FileOutput.y4m(path: path, frameRate: 30, colorSpace: colorSpace)
        let reference = Collector<PixelBuffer>()
        // FileOutput.y4m sites chroma as the frames' source (RGB: left) with the matched chroma filter.
        let yuv = try YUVDataOutput(format: .i420, colorSpace: colorSpace, chromaLocation: .left,
                                    chromaDownsampling: .matched) { reference.append($0) }
        let input = RawDataInput()
        input --> y4m
        input --> yuv
        try await EncoderFixtures.feed(frames, into: input, on: context)
        let written = try await y4m.finish()
        #expect(written == frames.count)
        #expect(y4m.framesWritten == frames.count)
        #expect(try await yuv.finish() == frames.count)

        let header = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)).prefix(80), as: UTF8.self)
            .split(separator: "\n").first ?? ""
        #expect(header.contains("W160 H120 F30:1"))
        #expect(header.contains("C420mpeg2"))
        #expect(header.contains(range == .full ? "XCOLORRANGE=FULL" : "XCOLORRANGE=LIMITED"))
        #expect(try EncoderFixtures.probeStream(path)["color_range"] == (range == .full ? "pc" : "tv"))
        let decoded = try EncoderFixtures.decode(path, pixelFormat: "yuv420p")
        var expected: [UInt8] = []
        reference.values.forEach { expected.append(contentsOf: $0.data) }
        #expect(decoded.count == expected.count)
        #expect([UInt8](decoded) == expected, "frame-exact")
    }

    @Test("raw RGBA file: byte-exact, read by ffmpeg as rawvideo")
    func rawRGBA() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frames = try EncoderFixtures.pannedAstronaut(width: 96, height: 64, count: 10)
        let path = folder.path("out.rgba")
        let output = try FileOutput.rawRGBA(path: path)
        // The file's grayscale branch, and the pipeline's collector after a second one.
        let pipeline = try EmbeddedPipeline(context: context) { input in
            input --> Grayscale() --> output
            return input --> Grayscale()
        }
        let images = pipeline.output
        try await EncoderFixtures.feed(frames, into: pipeline)
        try await pipeline.sendEndOfStream()  // end-of-stream finishes the file
        #expect(try await output.finish() == frames.count)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var expected: [UInt8] = []
        images.values.forEach { expected.append(contentsOf: $0.pixels) }
        #expect([UInt8](bytes) == expected)
        let count = try runTool("ffprobe", ["-v", "error", "-f", "rawvideo", "-pixel_format", "rgba", "-video_size", "96x64",
                                            "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        #expect(String(decoding: count, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "\(frames.count)")
    }

    @Test("raw RGBA file on a full disk: ENOSPC reported and thrown, the frames before stay")
    func rawRGBAFullDisk() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frameBytes = 64 * 48 * 4
        let path = folder.path("full.rgba")
        let output = try FileOutput.rawRGBA(writer: FillingDiskWriter(path: path, capacity: Int64(frameBytes * 3 + 100)))
        let pipeline = try EmbeddedPipeline(context: context, sink: output)
        try await EncoderFixtures.feed(try EncoderFixtures.pannedAstronaut(width: 64, height: 48, count: 8), into: pipeline)
        do {
            try await output.finish()
            Issue.record("the full disk went unnoticed")
        } catch let ELImageError.io(_, _, code, _) {
            #expect(code == ENOSPC)
        }
        #expect(await pipeline.failures.waitForFailures(1))
        #expect(output.framesWritten == 3)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == frameBytes * 3 + 100)
    }

    @Test("an unwritable Y4M path fails at creation")
    func unwritable() {
        #expect(throws: ELImageError.self) { try FileOutput.y4m(path: "/no/such/folder/out.y4m") }
        #expect(throws: ELImageError.self) { try FileOutput.y4m(path: "/tmp/x.y4m", format: .nv12) }
    }
}
