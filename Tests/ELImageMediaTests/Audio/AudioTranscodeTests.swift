import ELImageTestSupport
import Foundation
import Testing

/// A movie's sound through `elimage run`: its AAC track copied into the MP4 output beside the
/// filtered video, cut with it, and in sync with it.
@Suite("Sound: transcode keeps the movie's audio")
struct AudioTranscodeTests {
    let elimage = BuiltProgram(name: "elimage")
    let clip = Repository.path("Examples/Media/bigbuckbunny.mp4")

    @Test("The bundled clip through a filter, --frames 50: its AAC track is copied (same samples), cut at 2 s, starting with the video")
    func streamCopyAndTrim() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out.mp4")
        let result = try await elimage.run(["run", clip, "--filter", "grayscale", "--frames", "50", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let video = try #require(try AudioProbe.streams(output, kind: "v").first)
        let audio = try AudioProbe.streams(output, kind: "a")
        try #require(audio.count == 1, "no audio stream in \(output)")
        #expect(audio[0].codec == "aac")
        #expect(audio[0].start == video.start, "audio starts at \(audio[0].start) s, video at \(video.start) s")
        // Cut with the video: 50 frames at 25 fps, the audio within one frame of it.
        #expect(abs(video.duration - 2.0) < 0.001)
        #expect(abs(audio[0].duration - video.duration) <= 0.04, "audio \(audio[0].duration) s, video \(video.duration) s")
        // Stream copy: what ffmpeg decodes is the source's first 2 s, sample for sample.
        let copied = try AudioProbe.samples(output)
        let source = try AudioProbe.samples(clip)
        let expected: Int = 6 * 48_000 * 2 - 6 * 1024
        #expect(copied.count >= expected)
        #expect(copied.count <= source.count)
        #expect(copied == Array(source.prefix(copied.count)), "the decoded samples differ from the source's")
    }

    @Test("--no-audio leaves the sound out; a .h264 output has none and says nothing")
    func noAudio() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("silent.mp4")
        var result = try await elimage.run(["run", clip, "--frames", "5", "--no-audio", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try AudioProbe.streams(output, kind: "a").isEmpty)
        #expect(try AudioProbe.streams(output, kind: "v").count == 1)
        let raw = folder.path("raw.h264")
        result = try await elimage.run(["run", clip, "--frames", "5", "-o", raw])
        #expect(result.status == 0, "\(result.errors)")
    }

    @Test("A clip with a flash and a click at 1 s: transcoded (as fast as possible, and paced with --realtime), they stay within one frame (40 ms)",
          arguments: [[String](), ["--realtime"]])
    func syncKept(pacing: [String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("sync.mp4"), output = folder.path("out.mp4")
        try AudioProbe.makeSyncClip(source)
        let result = try await elimage.run(["run", source, "--filter", "grayscale", "-o", output] + pacing)
        #expect(result.status == 0, "\(result.errors)")
        let flash = try #require(try AudioProbe.flashTime(output))
        let click = try #require(try AudioProbe.clickTime(output))
        #expect(abs(flash - 1.0) < 0.001, "the flash moved to \(flash) s")
        #expect(abs(click - flash) < 0.04, "click at \(click) s, flash at \(flash) s")
        // Audio and video end together. (Paced in real time on a busy machine, late frames are
        // dropped and the last one kept lasts as long as the gap before it, past the sound's end.)
        guard pacing.isEmpty else { return }
        let video = try #require(try AudioProbe.streams(output, kind: "v").first)
        let audio = try #require(try AudioProbe.streams(output, kind: "a").first)
        let audioEnd: Double = audio.start + audio.duration
        let videoEnd: Double = video.start + video.duration
        #expect(abs(audioEnd - videoEnd) <= 0.04, "audio ends at \(audioEnd) s, video at \(videoEnd) s")
    }

    @Test("PCM sound in Matroska, which MP4 cannot hold: encoded to AAC, the click stays on the flash")
    func reencoded() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("pcm.mkv"), output = folder.path("out.mp4")
        try AudioProbe.makeSyncClip(source, audioCodec: "pcm_s16le")
        let result = try await elimage.run(["run", source, "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("encoding it to AAC"), "\(result.output)")
        let audio = try #require(try AudioProbe.streams(output, kind: "a").first)
        #expect(audio.codec == "aac")
        let flash = try #require(try AudioProbe.flashTime(output))
        let click = try #require(try AudioProbe.clickTime(output))
        #expect(abs(click - flash) < 0.04, "click at \(click) s, flash at \(flash) s")
    }
}
