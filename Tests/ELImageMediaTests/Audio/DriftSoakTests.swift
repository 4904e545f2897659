import ELImageTestSupport
import Foundation
import Testing

/// `elimage-soak` in short: the emulated camera recorded with sound from a private PulseAudio pipe
/// source whose clock runs 1500 ppm fast or slow (30 times the one-hour soak's 50 ppm, so 30 s
/// drift as far as 15 minutes would). Serialized (with the other sound suites): the capture's
/// clock measurement wants the sound thread served promptly.
@Suite("Sound: a live source whose clock drifts stays with the video", .serialized)
struct DriftSoakTests {
    /// The fields of the soak's summary.json these tests read.
    struct Summary: Decodable {
        var clicks: Int
        var startOffsetMilliseconds: Double
        var endOffsetMilliseconds: Double
        var measuredDriftPPM: Double?
        var samplesDropped: Int64?
        var samplesInserted: Int64?
        var framesEncoded: Int
        var videoResidualMilliseconds: Double
        var withinOneFrame: Bool
    }

    struct Point {
        var time: Double
        var offset: Double
    }

    func soak(ppm: Double, in folder: TemporaryFolder) async throws -> (Summary, [Point]) {
        let out = folder.path("ppm\(Int(ppm))")
        let result = try await BuiltProgram(name: "elimage-soak").run(["--duration", "30s", "--ppm=\(ppm)", "--out", out, "--json"])
        #expect(result.status == 0, "\(result.output)\n\(result.errors)")
        let summary = try JSONDecoder().decode(Summary.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json")))
        let csv = try String(contentsOfFile: out + "/offsets.csv", encoding: .utf8)
        let points = csv.split(separator: "\n").dropFirst().compactMap { line -> Point? in
            let fields = line.split(separator: ",").compactMap { Double($0) }
            return fields.count == 2 ? Point(time: fields[0], offset: fields[1]) : nil
        }
        return (summary, points)
    }

    @Test("+1500 ppm and −1500 ppm for 30 s: the measured drift is the writer's; every click is within a frame (40 ms) of its frame, from 21 s on within 10 ms (uncorrected: 45 ms at the end)",
          arguments: [1500.0, -1500.0])
    func drift(ppm: Double) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (summary, points) = try await soak(ppm: ppm, in: folder)
        let curve = points.map { String(format: "%.0f s %+.1f ms", $0.time, $0.offset) }.joined(separator: ", ")
        // A click a second, a frame each 40 ms, every frame where it was captured.
        #expect(summary.clicks >= 28, "\(summary.clicks) clicks found")
        #expect(summary.framesEncoded >= 700, "\(summary.framesEncoded) frames")
        #expect(summary.videoResidualMilliseconds < 1)
        // The capture measured the drift the writer made, and corrected it the right way.
        // (Its figure comes from a line through the seconds measured, which in 30 s still leans on the
        // start-up: within 40 %, where the one-hour soak's is within 5 %.)
        let measured = try #require(summary.measuredDriftPPM)
        #expect(abs(measured - ppm) < abs(ppm) * 0.4, "measured \(measured) ppm, the source runs \(ppm) ppm off; offsets: \(curve)")
        let expectedSamples = abs(ppm) / 1_000_000 * 30 * 48_000  // 2160 samples
        let corrected = ppm > 0 ? (summary.samplesDropped ?? 0) - (summary.samplesInserted ?? 0)
                                : (summary.samplesInserted ?? 0) - (summary.samplesDropped ?? 0)
        #expect(Double(corrected) > expectedSamples * 0.6 && Double(corrected) < expectedSamples * 1.6,
                "\(corrected) samples corrected, the drift makes \(expectedSamples); offsets: \(curve)")
        // Sound and video together: no click a frame off; none more than 10 ms off once the drift
        // is measured (five seconds of start-up, ten of measure) and followed, where without
        // correction the last would be 45 ms off.
        #expect(points.count == summary.clicks)
        for point in points {
            #expect(abs(point.offset) <= (point.time >= 21 ? 10 : 40), "the click at \(point.time) s is \(point.offset) ms off; offsets: \(curve)")
        }
        #expect(abs(summary.endOffsetMilliseconds) <= 10)
        #expect(summary.withinOneFrame)
    }
}
