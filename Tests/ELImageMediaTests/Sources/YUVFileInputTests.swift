import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// YUVFileInput: Y4M and raw YUV files as source nodes, run by a SourceRunner like movies.

@Suite("YUV file input", .closesContexts, .serialized)
struct YUVFileInputTests {
    /// One 4x2 I420 frame: 8 luma bytes, 2 + 2 chroma bytes.
    static func frame(_ luma: UInt8) -> [UInt8] { [UInt8](repeating: luma, count: 8) + [UInt8](repeating: 128, count: 4) }

    @Test("A Y4M file cut short inside frame 3: frames 0-2, end-of-stream, then the error with the frame number")
    func truncatedY4M() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("cut.y4m")
        var bytes = Array("YUV4MPEG2 W4 H2 F25:1 C420jpeg\n".utf8)
        for luma: UInt8 in [16, 100, 200] { bytes += Array("FRAME\n".utf8) + Self.frame(luma) }
        bytes += Array("FRAME\n".utf8) + Self.frame(50).prefix(5)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let context = try TestContexts.make()
        let input = try YUVFileInput(y4m: path)
        #expect((input.width, input.height, input.frameRate) == (4, 2, 25))
        let sink = MovieTimestampSink()
        input --> sink
        let error = await #expect(throws: ELImageError.self) { try await input.run(on: context) }
        guard case .malformedMedia(let file, let frame, _)? = error else {
            Issue.record("expected malformedMedia, got \(String(describing: error))")
            return
        }
        #expect(file == path && frame == 3)
        #expect(sink.timestamps == (0..<3).map { MediaTime(frame: Int64($0), framesPerSecond: 25) })
        #expect(sink.endOfStreamCount == 1)
        let statistics = input.statistics
        #expect((statistics.produced, statistics.delivered, statistics.dropped) == (3, 3, 0))
    }

    @Test("A raw file: a frame limit, and real-time pacing at the given rate")
    func rawLimitAndPacing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("clip.yuv")
        try Data((0..<5).flatMap { Self.frame(UInt8(16 + $0 * 40)) }).write(to: URL(fileURLWithPath: path))

        let context = try TestContexts.make()
        let limited = try YUVFileInput(raw: path, width: 4, height: 2, format: .i420, options: .init(frameLimit: 2))
        let first = MovieTimestampSink()
        limited --> first
        try await limited.run(on: context)
        #expect(first.timestamps.count == 2 && first.endOfStreamCount == 1)

        let paced = try YUVFileInput(raw: path, width: 4, height: 2, format: .i420, frameRate: 10,
                                     options: .init(pacing: .realTime))
        let second = MovieTimestampSink()
        paced --> second
        let elapsed = try await ContinuousClock().measure { try await paced.run(on: context) }
        #expect(elapsed >= .milliseconds(380), "5 frames at 10 fps span 0.4 s")
        #expect(paced.statistics.delivered + paced.statistics.dropped == 5)
        #expect(second.timestamps.count == paced.statistics.delivered)
    }
}
