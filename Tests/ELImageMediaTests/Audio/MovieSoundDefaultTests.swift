import ELImage
import ELImageMedia
import ELImageTesting
import ELImageTestSupport
import Foundation
import Testing

/// A recording keeps the sound of the movie whose frames it records, by default, in every shape
/// of graph: fan-out to two encoders, a range of the movie; and no sound where there is none to
/// keep (a silent movie, a raw .h264 stream, a Y4M file), without an error.
@Suite("Sound: a movie's recordings keep its sound by default", .closesContexts)
struct MovieSoundDefaultTests {
    let clip = Repository.path("Examples/Media/bigbuckbunny.mp4")
    /// One AAC frame of the clip's 48 kHz sound, in seconds.
    let audioFrame = 1024.0 / 48_000

    @Test("One movie into two encoders (one through a filter): both files hold its sound, sample for sample, as long as their video")
    func fanOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let movie = try MovieInput(path: clip, options: .init(frameRange: 0..<50))
        let first = try VideoEncoder(), second = try VideoEncoder()
        movie --> Grayscale() --> first
        movie --> second
        try first.start(recordingTo: folder.path("first.mp4"))
        try second.start(recordingTo: folder.path("second.mp4"))
        try await movie.run(on: context)
        try await first.finish()
        try await second.finish()
        #expect(failures.all.isEmpty, "\(failures.all)")
        let source = try AudioProbe.samples(clip)
        for name in ["first.mp4", "second.mp4"] {
            let path = folder.path(name)
            let video = try #require(try AudioProbe.streams(path, kind: "v").first)
            let audio = try #require(try AudioProbe.streams(path, kind: "a").first, "\(name) has no sound")
            #expect(abs(video.duration - 2.0) < 0.001)
            let gap: Double = abs(audio.duration - video.duration)
            #expect(gap <= audioFrame, "\(name): audio \(audio.duration) s, video \(video.duration) s")
            let copied = try AudioProbe.samples(path)
            let expected: Int = 6 * 48_000 * 2 - 6 * 1024  // 2 s of 6 channels, less at most one frame
            #expect(copied.count >= expected)
            #expect(copied == Array(source.prefix(copied.count)), "\(name): the decoded samples differ from the source's")
        }
    }

    @Test("A movie without sound, into MP4: no audio stream and no error; MovieInput.sound is nil")
    func silentMovie() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let silent = folder.path("silent.mp4"), output = folder.path("out.mp4")
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=blue:s=160x120:r=25:d=1",
                               "-c:v", "libx264", "-pix_fmt", "yuv420p", silent])
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let movie = try MovieInput(path: silent)
        #expect(movie.sound == nil)
        let encoder = try VideoEncoder()
        movie --> encoder
        try encoder.start(recordingTo: output)
        try await movie.run(on: context)
        let summary = try await encoder.finish()
        #expect(summary.statistics.encoded == 25)
        #expect(summary.statistics.audio.packetsWritten == 0)
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try AudioProbe.streams(output, kind: "a").isEmpty)
        #expect(try AudioProbe.streams(output, kind: "v").count == 1)
    }

    @Test("The bundled clip says what its sound is: 6-channel AAC at 48 kHz, which MP4 holds as it is")
    func soundInfo() throws {
        let sound = try #require(try MovieInput(path: clip).sound)
        #expect(sound.codecName == "aac")
        #expect(sound.sampleRate == 48_000)
        #expect(sound.channels == 6)
        #expect(sound.fitsInMP4)
    }

    @Test("A movie into a raw .h264 stream and into a Y4M file: no sound, no error")
    func outputsWithoutSound() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let movie = try MovieInput(path: clip, options: .init(frameRange: 0..<10))
        let encoder = try VideoEncoder()
        let y4m = try FileOutput.y4m(path: folder.path("out.y4m"))
        movie --> encoder
        movie --> y4m
        try encoder.start(recordingTo: folder.path("out.h264"))
        try await movie.run(on: context)
        #expect(try await encoder.finish().statistics.encoded == 10)
        #expect(try await y4m.finish() == 10)
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try AudioProbe.streams(folder.path("out.h264"), kind: "v").count == 1)
        #expect(try AudioProbe.streams(folder.path("out.y4m"), kind: "v").count == 1)
    }

    @Test("A range from the movie's middle (frames 50..<100): the sound is the same two seconds, starting with the first frame")
    func middleOfTheMovie() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("middle.mp4")
        let context = try TestContexts.make()
        let movie = try MovieInput(path: clip, options: .init(frameRange: 50..<100))
        let encoder = try VideoEncoder()
        movie --> encoder
        try encoder.start(recordingTo: output)
        try await movie.run(on: context)
        try await encoder.finish()
        let video = try #require(try AudioProbe.streams(output, kind: "v").first)
        let audio = try #require(try AudioProbe.streams(output, kind: "a").first)
        // Cut with the video, and in step with it: the recorded sound is the source's, copied,
        // from the packet that overlaps the first frame (its head before zero: a negative start).
        let gap: Double = abs(audio.start + audio.duration - video.duration)
        #expect(gap <= audioFrame, "audio \(audio.start) s + \(audio.duration) s, video \(video.duration) s")
        let recorded = try AudioProbe.samples(output, channels: 1), source = try AudioProbe.samples(clip, channels: 1)
        // Where the recorded sound sits in the source: the lag (within 50 ms of 2 s) at which a
        // tenth of a second of it equals the source's, sample for sample.
        let probe = recorded[4_800..<9_600]
        let lag = ((96_000 - 2_400)...(96_000 + 2_400)).first { lag in
            lag + 9_600 <= source.count && probe.elementsEqual(source[(lag + 4_800)..<(lag + 9_600)])
        }
        let found = try #require(lag, "the recorded sound is not a copy of the source's (no lag within 50 ms of 2 s matches)")
        // Its first sample plays at `audio.start`, 2 s (the first frame's time) before the source's.
        let sourceTime: Double = Double(found) / 48_000
        #expect(abs(audio.start + 2.0 - sourceTime) < 0.5 / 48_000, "first sample at \(audio.start) s is the source's \(sourceTime) s")
    }
}
