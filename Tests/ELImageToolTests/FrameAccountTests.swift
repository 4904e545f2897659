import ELImageTestSupport
import Foundation
import Testing

/// Every frame the input made is counted once in the summary: a run that lost frames never reads as
/// if it lost none.
@Suite("elimage run: the frames the input lost are counted")
struct FrameAccountTests {
    let elimage = BuiltProgram(name: "elimage")

    @Test("A file paced in real time faster than any graph keeps up: the summary counts the frames dropped late, and the counts add up to the file's frames and ffprobe's")
    func lateFramesAreCounted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // 100 frames at 10000 fps: 10 ms of video, which no machine uploads, encodes and writes in time.
        let clip = folder.path("fast.y4m"), output = folder.path("out.mp4")
        try writeTestPattern(to: clip, size: "320x180", rate: "10000", frames: 100)
        let result = try await elimage.run(["run", clip, "--realtime", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let line = try #require(result.output.firstMatch(of: /wrote (\d+) frames? to .*; the input made (\d+) frames: (\d+) went through, (\d+) dropped \((\d+) at the input: too late for real-time pacing\)/),
                                "\(result.output)")
        let (written, made, through, dropped, late) = (Int(line.1), Int(line.2), Int(line.3), Int(line.4), Int(line.5))
        #expect(made == 100)
        #expect(through.map { $0 + (dropped ?? 0) } == made, "delivered + dropped = made")
        #expect(late == dropped && (dropped ?? 0) > 0)
        #expect(written == through)
        #expect(try EncoderFixtures.decodedFrameCount(output) == written, "ffprobe counts the frames the summary says")
    }

    @Test("Into Y4M the constant rate fills the gaps: the summary's written frames are ffprobe's, the delivered plus the duplicates")
    func lateFramesIntoConstantRate() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("fast.y4m"), output = folder.path("out.y4m")
        try writeTestPattern(to: clip, size: "320x180", rate: "10000", frames: 100)
        let result = try await elimage.run(["run", clip, "--realtime", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let line = try #require(result.output.firstMatch(
            of: /wrote (\d+) frames? to .* \(constant rate: (\d+) duplicated, (\d+) dropped\); the input made (\d+) frames: (\d+) went through, (\d+) dropped/),
            "\(result.output)")
        let numbers = [line.1, line.2, line.3, line.4, line.5, line.6].compactMap { Int($0) }
        let (written, duplicated, converterDropped, made, through, dropped) = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5])
        #expect(made == through + dropped && made == 100)
        #expect(written == through + duplicated - converterDropped, "\(result.output)")
        #expect(try EncoderFixtures.decodedFrameCount(output) == written)
    }

    @Test("A stream (HLS) and --record beside it: the summary's frames are those in the playlist's segments, the recording holds every frame the graph gave, and the input's losses are counted")
    func streamAndRecordingAccount() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("fast.y4m"), recording = folder.path("beside.mp4"), stream = folder.path("live")
        try FileManager.default.createDirectory(atPath: stream, withIntermediateDirectories: false)
        try writeTestPattern(to: clip, size: "320x180", rate: "10000", frames: 100)
        let result = try await elimage.run(["run", clip, "--hls-list-size", "0", "--record", recording, "-o", "\(stream)/index.m3u8"])
        #expect(result.status == 0, "\(result.errors)")
        let line = try #require(result.output.firstMatch(of: /streamed (\d+) frames? to .*; the input made (\d+) frames: (\d+) went through, (\d+) dropped/),
                                "\(result.output)")
        let (streamed, made, through, dropped) = (Int(line.1) ?? -1, Int(line.2) ?? -1, Int(line.3) ?? -1, Int(line.4) ?? -1)
        #expect(made == 100 && through + dropped == made)
        #expect(streamed == through, "nothing is lost between the graph and the playlist on a disk")
        // ffprobe lists the playlist's stream once for each program it finds: the first count.
        let counted = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                               "stream=nb_read_frames", "-of", "csv=p=0", "\(stream)/index.m3u8"]), as: UTF8.self)
        #expect(counted.split(whereSeparator: \.isNewline).first.flatMap { Int($0) } == streamed, "\(counted)")
        #expect(try EncoderFixtures.decodedFrameCount(recording) == through)
        // --record's own line: its frames and the same account.
        let recorded = try #require(result.output.firstMatch(of: /recorded (\d+) frames? to .*beside\.mp4; the input made (\d+) frames: (\d+) went through/),
                                    "\(result.output)")
        #expect(Int(recorded.1) == through && Int(recorded.2) == made && Int(recorded.3) == through, "\(result.output)")
    }

    @Test("Every file output kind under real-time pacing: the summary's frames are those in the file, and the input's frames add up",
          arguments: ["mp4", "h264", "mkv", "webm", "gif", "webp", "y4m", "rgba", "frame%03d.png"])
    func everyOutputKind(output kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("fast.y4m")
        try writeTestPattern(to: clip, size: "160x90", rate: "2000", frames: 60)
        let output = folder.path(kind.contains("%") ? kind : "out.\(kind)")
        let result = try await elimage.run(["run", clip, "--realtime", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let written = try #require(result.output.firstMatch(of: /wrote (\d+) frames? to/).flatMap { Int($0.1) }, "\(result.output)")
        // Real-time pacing at 2000 fps drops frames on any machine: the summary must say so, adding up.
        let account = try #require(result.output.firstMatch(of: /; the input made (\d+) frames: (\d+) went through, (\d+) dropped \(/),
                                   "\(result.output)")
        let (made, through, dropped) = (Int(account.1) ?? -1, Int(account.2) ?? -1, Int(account.3) ?? -1)
        #expect(made == 60 && through + dropped == made, "\(result.output)")
        let counted: Int = switch kind {
        case "rgba": ((try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0) / (160 * 90 * 4)
        case "frame%03d.png": try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".png") }.count
        case "webp": try CodecOutputTests.decode(output).frames.count
        default: try EncoderFixtures.decodedFrameCount(output)
        }
        #expect(counted == written, "the file holds \(counted) frames, the summary says \(written)")
    }

    @Test("A run that loses nothing says nothing of losses")
    func nothingLost() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, frames: 5)
        let result = try await elimage.run(["run", clip, "-o", folder.path("out.mp4")])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("wrote 5 frames to"))
        #expect(!result.output.contains("the input made"), "\(result.output)")
    }
}
