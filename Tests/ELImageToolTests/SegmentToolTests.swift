import ELImageTestSupport
import Foundation
import Testing

/// `elimage run … --segment`: a movie with sound split into files, every frame and every sound
/// packet in exactly one of them, loop recording, and the usage errors.
@Suite("elimage run --segment")
struct SegmentToolTests {
    let elimage = BuiltProgram(name: "elimage")
    let bunny = Repository.path("Examples/Media/bigbuckbunny.mp4")

    /// (video packets, audio packets, audio start seconds, video duration seconds) of `path`.
    func streams(_ path: String) throws -> (video: Int, audio: Int, audioStart: Double, videoDuration: Double) {
        let output = try runTool("ffprobe", ["-v", "error", "-count_packets", "-show_entries",
                                             "stream=codec_type,nb_read_packets,start_time,duration", "-of", "csv=p=0", path])
        var result = (video: 0, audio: 0, audioStart: -1.0, videoDuration: 0.0)
        for line in String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count >= 4 else { continue }
            if fields[0] == "video" {
                result.video = Int(fields[3]) ?? -1
                result.videoDuration = Double(fields[2]) ?? -1
            } else if fields[0] == "audio" {
                result.audio = Int(fields[3]) ?? -1
                result.audioStart = Double(fields[1]) ?? -1
            }
        }
        return result
    }

    @Test("a movie with sound in 1 s files: every frame and every sound packet once, each file's sound from its start")
    func movieWithSound() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let whole = try await elimage.run(["run", bunny, "--filter", "grayscale", "-o", folder.path("whole.mp4")])
        #expect(whole.status == 0, "\(whole.errors)")
        let result = try await elimage.run(["run", bunny, "--filter", "grayscale", "-o", folder.path("part.mp4"), "--segment", "1s"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("segments: 6 files, \(folder.path("part-00001.mp4")) ... \(folder.path("part-00006.mp4"))"),
                "\(result.output)")

        let reference = try streams(folder.path("whole.mp4"))
        #expect(reference.video == 132)
        var (video, audio) = (0, 0)
        for number in 1...6 {
            let part = try streams(folder.path(String(format: "part-%05d.mp4", number)))
            video += part.video
            audio += part.audio
            // 25 frames a file but the last; its sound starts within one AAC packet (1024 samples
            // at 48 kHz) of its first frame, and ends with its video.
            #expect(part.video == (number < 6 ? 25 : 7), "file \(number): \(part.video) frames")
            #expect(part.audioStart >= 0 && part.audioStart < 1024.0 / 48_000, "file \(number): sound starts at \(part.audioStart) s")
        }
        #expect(video == reference.video)
        #expect(audio == reference.audio, "the files hold \(audio) sound packets, one recording \(reference.audio)")
    }

    @Test("--segment-keep keeps the newest files and says how many older ones it deleted")
    func keepNewest() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await elimage.run(["run", bunny, "-o", folder.path("loop.h264"), "--segment", "1s", "--segment-keep", "2"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("(4 older deleted)"), "\(result.output)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(left == ["loop-00005.h264", "loop-00006.h264"])
        // A raw stream's files start with their headers and a keyframe: each decodes alone.
        #expect(try EncoderFixtures.decodedFrameCount(folder.path("loop-00005.h264")) == 25)
        #expect(try EncoderFixtures.decodedFrameCount(folder.path("loop-00006.h264")) == 7)
    }

    @Test("usage errors: a length that is neither a duration nor a size, a file kind that is not video, --segment-keep alone")
    func usageErrors() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (arguments, words) in [
            (["-o", folder.path("a.mp4"), "--segment", "10x"], "give a duration (10m, 30s, 1h, 500ms) or a size (50MB, 1GiB)"),
            (["-o", folder.path("a.mp4"), "--segment", "10M"], "write 10m for minutes or 10MB for a size"),
            (["-o", folder.path("a.y4m"), "--segment", "1s"], "only a video recording"),
            (["-o", folder.path("a.mp4"), "--segment-keep", "3"], "give --segment too"),
            (["-o", folder.path("a.mp4"), "--segment", "1s", "--segment-keep", "0"], "--segment-keep 0"),
            (["-o", folder.path("cam-%n.mp4"), "--segment", "1s"], "not a date or time"),
        ] {
            let result = try await elimage.run(["run", bunny] + arguments)
            #expect(result.status != 0, "\(arguments) was accepted")
            #expect(result.errors.contains(words), "\(arguments): \(result.errors)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}
