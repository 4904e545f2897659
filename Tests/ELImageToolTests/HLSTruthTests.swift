import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// An HLS output describes itself truly: `--hls-segment D` makes segments D long (a keyframe at
/// each boundary), every `#EXTINF` is its segment's real length, and the playlist holds to RFC 8216.
@Suite("elimage run -o DIR/index.m3u8: segments as long as asked, durations as they are")
struct HLSTruthTests {
    let elimage = BuiltProgram(name: "elimage")

    /// The playlist's segments: each `#EXTINF` duration and the URI after it; fails on lines a
    /// strict reader refuses (RFC 8216: a first `#EXTM3U`, a target duration no segment exceeds
    /// once rounded, a URI after each `#EXTINF`, `#EXT-X-ENDLIST` once the stream ended).
    static func segments(of playlist: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [(duration: Double, uri: String)] {
        let lines = playlist.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.first == "#EXTM3U", "the first line", sourceLocation: sourceLocation)
        let target = try #require(lines.first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }.flatMap { Int($0.dropFirst(22)) },
                                  sourceLocation: sourceLocation)
        var found: [(Double, String)] = []
        var pending: Double?
        for line in lines.dropFirst() {
            if line.hasPrefix("#EXTINF:") {
                #expect(pending == nil, "two #EXTINF in a row", sourceLocation: sourceLocation)
                pending = Double(line.dropFirst(8).prefix { $0 != "," })
                #expect(pending != nil, "\(line)", sourceLocation: sourceLocation)
            } else if !line.hasPrefix("#"), !line.isEmpty {
                let duration = try #require(pending, "a URI without #EXTINF: \(line)", sourceLocation: sourceLocation)
                #expect(Int(duration.rounded()) <= target, "#EXTINF \(duration) over the target \(target)", sourceLocation: sourceLocation)
                found.append((duration, line))
                pending = nil
            }
        }
        #expect(lines.last == "#EXT-X-ENDLIST", "the stream ended", sourceLocation: sourceLocation)
        return found
    }

    /// The length of the video in a segment file: from its first frame's time to its last frame's end.
    static func videoLength(of segment: String) throws -> Double {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time",
                                             "-of", "csv=p=0", segment])
        let packets = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline).map { line in
            line.split(separator: ",").compactMap { Double($0) }
        }.filter { $0.count == 2 }
        guard let first = packets.map({ $0[0] }).min(), let last = packets.max(by: { $0[0] < $1[0] }) else { return 0 }
        return last[0] + last[1] - first
    }

    @Test("--hls-segment 1s: three seconds of video become three 1 s segments, and each #EXTINF is its segment's length within a frame",
          arguments: ["1s", "0.5s"])
    func segmentLengths(length: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, size: "160x90", frames: 75)
        let stream = folder.path("live")
        try FileManager.default.createDirectory(atPath: stream, withIntermediateDirectories: false)
        let result = try await elimage.run(["run", clip, "--hls-segment", length, "--hls-list-size", "0", "-o", "\(stream)/index.m3u8"])
        #expect(result.status == 0, "\(result.errors)")
        let seconds = length == "1s" ? 1.0 : 0.5
        let segments = try Self.segments(of: try String(contentsOfFile: "\(stream)/index.m3u8", encoding: .utf8))
        // The whole stream's video, from its first frame to its last frame's end: real-time pacing
        // may drop frames on a busy machine, and the segments still cut on time around the gaps.
        let whole = try Self.videoLength(of: "\(stream)/index.m3u8")
        // A frame dropped at a segment's end shortens its video by the gap it leaves.
        let times = try EncoderFixtures.probeFrameTimes("\(stream)/index.m3u8")
        let tolerance = zip(times.dropFirst(), times).map { $0 - $1 }.max().map { max($0, 0.04) + 1e-6 } ?? 0.04
        #expect(segments.count == Int((whole / seconds - 0.01).rounded(.up)), "\(whole) s in \(segments.map(\.duration))")
        var total = 0.0
        for (index, segment) in segments.enumerated() {
            let real = try Self.videoLength(of: "\(stream)/\(segment.uri)")
            total += segment.duration
            #expect(abs(segment.duration - real) <= tolerance, "segment \(index): #EXTINF \(segment.duration), video \(real)")
            if index < segments.count - 1 {
                #expect(abs(real - seconds) <= tolerance, "segment \(index) lasts \(real) s, asked \(seconds)")
            }
        }
        #expect(abs(total - whole) <= tolerance, "the #EXTINFs add up to the stream's \(whole) s: \(total) s")
    }

    /// A page that plays `index.m3u8` in a `<video>` element (Chromium plays HLS itself) and
    /// reports how it went: `report event=ended&duration=…&frames=…` (or `event=error`).
    static let player = """
        <!doctype html>
        <video id="video" muted autoplay playsinline src="index.m3u8"></video>
        <script>
        const video = document.getElementById("video");
        const report = (facts) => console.log("report " + new URLSearchParams(facts));
        video.addEventListener("error", () => report({event: "error", code: video.error.code, message: video.error.message}));
        video.addEventListener("ended", () => {
          const quality = video.getVideoPlaybackQuality();
          report({event: "ended", time: video.currentTime, duration: video.duration, width: video.videoWidth,
                  height: video.videoHeight, frames: quality.totalVideoFrames, dropped: quality.droppedVideoFrames});
        });
        </script>
        """

    @Test("Chromium plays the HLS stream from nginx to its end: every frame sent, at the size sent, as long as the playlist says")
    func chromiumPlays() async throws {
        let server = try PrivateStreamingServer.start()
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, size: "160x90", frames: 75)
        try Self.player.write(toFile: server.webFolder + "/player.html", atomically: true, encoding: .utf8)
        let result = try await elimage.run(["run", clip, "--hls-segment", "1s", "--hls-list-size", "0",
                                            "-o", server.webFolder + "/index.m3u8"])
        #expect(result.status == 0, "\(result.errors)")
        let sent = try #require(result.output.firstMatch(of: /stream: (\d+) frames sent/).flatMap { Int($0.1) }, "\(result.output)")
        let playlist = try String(contentsOfFile: server.webFolder + "/index.m3u8", encoding: .utf8)
        let listed = try Self.segments(of: playlist).map(\.duration).reduce(0, +)

        let reports = try await HeadlessChromium.open(server.httpURL("player.html")) { $0.hasPrefix("event=") }
        let facts = try #require(reports.first.flatMap { URLComponents(string: "?" + $0)?.queryItems },
                                 "Chromium reported nothing within a minute")
        let fact = { (name: String) in facts.first { $0.name == name }?.value ?? "" }
        try #require(fact("event") == "ended", "Chromium did not play to the end: \(reports)")
        #expect(Int(fact("frames")) == sent, "Chromium showed \(fact("frames")) frames of \(sent) sent")
        #expect(fact("width") == "160" && fact("height") == "90", "\(reports)")
        let duration = try #require(Double(fact("duration")))
        #expect(abs(duration - listed) <= 0.041, "Chromium played \(duration) s, the playlist lists \(listed) s")
    }
}
