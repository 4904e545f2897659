import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// `FileOutput.y4m` without a frame rate writes its input's: from the first two timestamps.
@Suite("Y4M output takes its input's frame rate", .closesContexts)
struct Y4MFrameRateTests {
    /// The header line of the Y4M file at `path`.
    func headerLine(_ path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return String(decoding: data.prefix(while: { $0 != 0x0A }), as: UTF8.self)
    }

    @Test("Frames stamped at 30 and 24000/1001 fps give F30:1 and F24000:1001; ffprobe agrees", arguments: [
        (MediaTime(value: 1, timescale: 30), "F30:1", "30/1"),
        (MediaTime(value: 1001, timescale: 24000), "F24000:1001", "24000/1001"),
        (MediaTime(value: 512, timescale: 15360), "F30:1", "30/1"),   // an MP4's 1/15360 ticks
        (MediaTime(microseconds: 33_367), "F30000:1001", "30000/1001"),   // a camera's µs, snapped
    ])
    func rateFromTimestamps(interval: MediaTime, field: String, probed: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("out.y4m")
        let y4m = try FileOutput.y4m(path: path)
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: y4m)
        let frames = try EncoderFixtures.pannedAstronaut(width: 32, height: 16, count: 4)
        let start = MediaTime(value: 7 * interval.value, timescale: interval.timescale)
        let times = (0..<4).map { MediaTime(value: start.value + Int64($0) * interval.value, timescale: interval.timescale) }
        try await EncoderFixtures.feed(frames, into: pipeline, timestamps: times)
        #expect(try await y4m.finish() == 4)
        let header = try headerLine(path)
        #expect(header.split(separator: " ").contains(Substring(field)), "\(header)")
        let rate = String(decoding: try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0", path]),
                          as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(rate == probed)
    }

    @Test("A single frame is written (at 25 fps); an explicit rate wins over the timestamps")
    func singleFrameAndExplicitRate() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frames = try EncoderFixtures.pannedAstronaut(width: 32, height: 16, count: 3)

        let one = try FileOutput.y4m(path: folder.path("one.y4m"))
        let single = try EmbeddedPipeline(context: context, sink: one)
        try await EncoderFixtures.feed(Array(frames.prefix(1)), into: single)
        #expect(try await one.finish() == 1)
        #expect(try headerLine(folder.path("one.y4m")).contains(" F25:1 "))
        #expect(try EncoderFixtures.decodedFrameCount(folder.path("one.y4m")) == 1)

        let fixed = try FileOutput.y4m(path: folder.path("fixed.y4m"), frameRate: .init(60000, 1001))
        let told = try EmbeddedPipeline(context: context, sink: fixed)
        try await EncoderFixtures.feed(frames, into: told)   // stamped at 30 fps
        #expect(try await fixed.finish() == 3)
        #expect(try headerLine(folder.path("fixed.y4m")).contains(" F60000:1001 "))
    }
}
