import ELImageTestSupport
import Foundation
import Testing

/// `elimage-stream-latency` on a short run: it reads the stamped frames back through nginx and
/// srt-live-transmit and reports latencies a live stream can have.
@Suite("elimage-stream-latency")
struct StreamLatencyToolTests {
    @Test("Four seconds each of RTMP and SRT: the stamped frames after the viewer joined are read back, within a second, one CSV row a frame")
    func shortRun() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await BuiltProgram(name: "elimage-stream-latency").run(
            ["--seconds", "4", "--fps", "25", "--size", "320x180", "--sender", "elimage", "--out", folder.url.path, "--json"])
        #expect(result.status == 0, "\(result.errors)")
        struct Summary: Decodable {
            let `protocol`: String
            let sent: Int
            let received: Int
            let p50: Double
            let p99: Double
            let framesDropped: Int
        }
        let summaries = try JSONDecoder().decode([Summary].self, from: Data(contentsOf: folder.url.appendingPathComponent("summary.json")))
        #expect(summaries.map(\.protocol) == ["rtmp", "srt"])
        for summary in summaries {
            #expect(summary.sent == 100)
            // The viewer joins late (RTMP after half a second) and starts at a keyframe (one a second):
            // ffmpeg's start-up usually misses the first, so about 48 arrive; a busy machine delays it further.
            #expect(summary.received >= 20, "\(summary.protocol): \(summary.received) of \(summary.sent) read back")
            #expect(summary.p50 > 0 && summary.p50 < 1000 && summary.p99 < 2000, "\(summary.protocol): p50 \(summary.p50) ms, p99 \(summary.p99) ms")
            #expect(summary.framesDropped == 0)
            let rows = try String(contentsOfFile: folder.path("latency-\(summary.protocol)-elimage.csv"), encoding: .utf8)
                .split(separator: "\n").dropFirst()
            #expect(rows.count == summary.sent)
        }
    }
}
