import ELImageCommandLine
import ELImageTestSupport
import Foundation
import Testing

/// What a user who knows ffmpeg types: `-i`, `-ss`/`-t`, `-y`, a progress line on a terminal,
/// "did you mean" for filter names, and no input is a usage error.
@Suite("elimage run with ffmpeg's habits", .closesContexts)
struct FFmpegHabitsTests {
    let elimage = BuiltProgram(name: "elimage")

    /// Three seconds of ffmpeg's moving test pattern (every frame differs) at 25 fps, 160×90 H.264,
    /// with a 440 Hz AAC track.
    static func movie(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("movie.mp4")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25",
                               "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "3",
                               "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", path])
        return path
    }

    /// The luma planes of `path`'s frames, as ffmpeg decodes them (`extra` before `-i`, `after` after it).
    static func lumaFrames(_ path: String, before: [String] = [], after: [String] = []) throws -> [[UInt8]] {
        let data = try runTool("ffmpeg", ["-nostdin", "-v", "error"] + before + ["-i", path] + after
                                   + ["-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let size = 160 * 90
        return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<($0 + size)]) }
    }

    @Test("-ss and -t cut a movie to the frame, as ffmpeg's -ss before -i and -t do: the same frames, the sound as long as they last")
    func startAndDuration() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let movie = try Self.movie(in: folder)
        let cut = folder.path("cut.y4m"), recorded = folder.path("cut.mp4")
        let result = try await elimage.run(["run", "-i", movie, "-ss", "1", "-t", "0.5", "-o", cut])
        #expect(result.status == 0, "\(result.errors)")
        let ours = try Self.lumaFrames(cut)
        let theirs = try Self.lumaFrames(movie, before: ["-ss", "1"], after: ["-t", "0.5"])
        // Frames beginning at 1.00 ... 1.48 s: 13 of them.
        #expect(ours.count == 13 && theirs.count == 13, "\(ours.count) frames, ffmpeg \(theirs.count)")
        let neighbour = try Self.lumaFrames(movie, before: ["-ss", "0.96"], after: ["-frames:v", "1"])
        for (index, (frame, reference)) in zip(ours, theirs).enumerated() {
            let same = EncoderFixtures.psnr(frame, reference)
            #expect(same >= 40, "frame \(index): \(same) dB against ffmpeg's")
            if index == 0, let earlier = neighbour.first {
                // The pattern moves every frame: the frame before scores far lower.
                #expect(EncoderFixtures.psnr(frame, earlier) < same - 10, "the first frame is 1.00 s, not 0.96 s")
            }
        }
        // With --frames too, whichever ends first: 5 frames from 1.00 s.
        let counted = try await elimage.run(["run", movie, "-ss", "1", "-t", "0.5", "--frames", "5", "-o", folder.path("five.y4m")])
        #expect(counted.status == 0, "\(counted.errors)")
        let five = try Self.lumaFrames(folder.path("five.y4m"))
        #expect(five.count == 5 && five.first.map { EncoderFixtures.psnr($0, theirs[0]) >= 40 } == true, "\(five.count) frames")
        // The same cut into MP4 keeps the sound of those frames, starting at zero.
        let withSound = try await elimage.run(["run", movie, "--start", "00:00:01", "--duration", "0:00.5", "-o", recorded])
        #expect(withSound.status == 0, "\(withSound.errors)")
        #expect(withSound.output.contains("wrote 13 frames"), "\(withSound.output)")
        let streams = String(decoding: try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,start_time,duration",
                                                               "-of", "csv=p=0", recorded]), as: UTF8.self)
        let fields = streams.split(whereSeparator: \.isNewline).map { $0.split(separator: ",").map(String.init) }
        let video = try #require(fields.first { $0.first == "video" }), audio = try #require(fields.first { $0.first == "audio" })
        #expect(abs((Double(video[1]) ?? 9)) < 0.001, "video starts at \(video[1])")
        #expect(abs((Double(video[2]) ?? 0) - 0.52) < 0.001, "13 frames of 40 ms: \(video[2])")
        #expect(abs((Double(audio[2]) ?? 0) - 0.52) <= 0.04, "the sound lasts as long as the video, within a frame: \(audio[2])")
    }

    @Test("-ss and -t on a Y4M file and a picture: the frames of that time at the file's or --fps rate; -ss on a picture is refused")
    func startAndDurationOnFramesAndPictures() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m"), picture = folder.path("picture.png"), out = folder.path("out.y4m")
        try writeTestPattern(to: clip, size: "160x90", frames: 50)
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90", "-frames:v", "1", picture])
        let cut = try await elimage.run(["run", clip, "-ss", "1", "-t", "0.5", "-o", out])
        #expect(cut.status == 0, "\(cut.errors)")
        let ours = try Self.lumaFrames(out), theirs = try Self.lumaFrames(clip, after: ["-ss", "1", "-t", "0.5"])
        #expect(ours.count == 13 && theirs.count == 13, "\(ours.count) frames, ffmpeg \(theirs.count)")
        if let first = ours.first, let reference = theirs.first {
            #expect(EncoderFixtures.psnr(first, reference) >= 40, "the first frame is frame 25")
        }
        let still = try await elimage.run(["run", picture, "-t", "2", "--fps", "10", "-y", "-o", out])
        #expect(still.status == 0, "\(still.errors)")
        #expect(try EncoderFixtures.decodedFrameCount(out) == 20)
        let refused = try await elimage.run(["run", picture, "-ss", "1", "-o", folder.path("never.y4m")])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("-ss 1: \(picture) has no timeline to begin within"), "\(refused.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("never.y4m")))
    }

    @Test("Times as ffmpeg writes them: [HH:]MM:SS[.mmm] and seconds with units; nonsense is refused with an example",
          arguments: [("90", 90_000), ("1:30", 90_000), ("00:01:30.5", 90_500), ("2.5s", 2_500), ("500ms", 500), ("1.5m", 90_000),
                      ("1h", 3_600_000), ("0", 0)] as [(String, Int64)])
    func timeSyntax(text: String, milliseconds: Int64) throws {
        #expect(try TimeArgument.parse(text, option: "-ss", allowsZero: true) == .milliseconds(milliseconds))
    }

    @Test("Times that are not times are usage errors naming the option",
          arguments: [("1:75", true), ("abc", true), ("-3", true), ("1:2:3:4", true), ("0", false), ("5 parsecs", false)])
    func badTimes(text: String, allowsZero: Bool) {
        #expect(throws: UsageError.self) { try TimeArgument.parse(text, option: "-t", allowsZero: allowsZero) }
        do {
            _ = try TimeArgument.parse(text, option: "-t", allowsZero: allowsZero)
        } catch {
            #expect(error.description.hasPrefix("-t \(text):"), "\(error.description)")
        }
    }

    @Test("An existing output (-o, --metadata) is refused without -y and left as it was; -y replaces it")
    func overwriteNeedsY() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, frames: 3)
        for (option, name) in [("-o", "out.mp4"), ("--metadata", "found.jsonl")] {
            let existing = folder.path(name)
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
            var arguments = ["run", clip, "-o", folder.path("other-\(name).y4m")]
            if option == "-o" { arguments = ["run", clip, "-o", existing] } else { arguments += ["--detect", "motion", option, existing] }
            let refused = try await elimage.run(arguments)
            #expect(refused.status == 2, "\(option): \(refused.errors)")
            #expect(refused.errors.contains("\(option) \(existing) exists: add -y to replace it"), "\(refused.errors)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("keep me".utf8), "\(name) is untouched")
            let replaced = try await elimage.run(arguments + ["-y"])
            #expect(replaced.status == 0, "\(option) -y: \(replaced.errors)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) != Data("keep me".utf8), "-y replaced \(name)")
        }
    }

    @Test("A numbered picture named as the run goes is not replaced without -y: the run stops at it, naming it")
    func numberedPictureNeedsY() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, frames: 4)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: folder.path("frame3.png")))
        let result = try await elimage.run(["run", clip, "-o", folder.path("frame%d.png")])
        #expect(result.status != 0)
        #expect(result.errors.contains("frame3.png exists"), "\(result.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("frame3.png"))) == Data("keep me".utf8))
        let replaced = try await elimage.run(["run", clip, "-y", "-o", folder.path("frame%d.png")])
        #expect(replaced.status == 0, "\(replaced.errors)")
    }

    @Test("-i is INPUT; both at once, or neither, is a usage error (no input names the bundled sample)")
    func inputForms() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, frames: 3)
        let viaOption = try await elimage.run(["run", "-i", clip, "-o", folder.path("a.y4m")])
        #expect(viaOption.status == 0, "\(viaOption.errors)")
        let positional = try await elimage.run(["run", clip, "-o", folder.path("b.y4m")])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("a.y4m"))) == Data(contentsOf: URL(fileURLWithPath: folder.path("b.y4m"))))
        #expect(positional.status == 0)
        let both = try await elimage.run(["run", clip, "-i", clip, "-o", folder.path("c.y4m")])
        #expect(both.status == 2)
        #expect(both.errors.contains("two inputs"), "\(both.errors)")
        let none = try await elimage.run(["run", "-o", folder.path("d.y4m")])
        #expect(none.status == 2)
        #expect(none.errors.contains("no input: give a file or a camera"), "\(none.errors)")
        #expect(none.errors.contains("bigbuckbunny.mp4"), "it names the sample: \(none.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("d.y4m")))
    }

    @Test("Mistyped names: an unknown filter is named before its values are read, with the closest filter or parameter",
          arguments: [
            (["--filter", "drawtext:text=hello"], "unknown filter 'drawtext' (`elimage filters` lists them"),
            (["--filter", "greyscale"], "unknown filter 'greyscale'; did you mean 'grayscale'?"),
            (["--filter", "satur=0.5"], "unknown filter 'satur'; did you mean 'saturation'?"),
            (["--filter", "blur:sigm=3"], "filter 'blur' has no parameter 'sigm'; did you mean 'sigma'?"),
            (["--filter", "levels:gama=2"], "did you mean 'gamma'?"),
          ] as [([String], String)])
    func suggestions(arguments: [String], message: String) async throws {
        let result = try await elimage.run(["run", "missing.mp4"] + arguments + ["-o", "never.y4m"])
        #expect(result.status == 2)
        #expect(result.errors.contains(message), "\(result.errors)")
    }

    @Test("On a terminal a progress line refreshes in place (frame, fps, time, speed); into a pipe it stays quiet")
    func progressLine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, frames: 50)
        // script(1) gives the program a terminal of its own and copies what it writes.
        let command = [elimage.url.path, "run", clip, "-o", folder.path("t.y4m")].map { "'\($0)'" }.joined(separator: " ")
        let terminal = String(decoding: try runTool("script", ["-qec", command, "/dev/null"]), as: UTF8.self)
        let last = try #require(terminal.split(separator: "\r").last { $0.contains("frame=") }, "\(terminal)")
        #expect(last.contains("frame=   50"), "\(last)")
        #expect(last.contains("time=00:00:02.000"), "50 frames at 25 fps: \(last)")
        #expect(last.contains("fps=") && last.contains("speed="), "\(last)")
        #expect(terminal.contains("wrote 50 frames"))
        #expect(!last.contains("drop="), "nothing dropped, nothing said: \(last)")
        let piped = try await elimage.run(["run", clip, "-o", folder.path("p.y4m")])
        #expect(piped.status == 0)
        #expect(!piped.errors.contains("frame="), "no progress line into a pipe: \(piped.errors)")
    }

    @Test("The progress line counts the frames dropped on the way (drop=) as the summary does")
    func progressLineDrops() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("fast.y4m")
        try writeTestPattern(to: clip, size: "320x180", rate: "2000", frames: 60)
        let command = [elimage.url.path, "run", clip, "--realtime", "-o", folder.path("t.mp4")].map { "'\($0)'" }.joined(separator: " ")
        let terminal = String(decoding: try runTool("script", ["-qec", command, "/dev/null"]), as: UTF8.self)
        let last = try #require(terminal.split(separator: "\r").last { $0.contains("frame=") }, "\(terminal)")
        let shown = try #require(last.firstMatch(of: /dup=0 drop=(\d+)/).flatMap { Int($0.1) }, "\(last)")
        let summary = try #require(terminal.firstMatch(of: /went through, (\d+) dropped/).flatMap { Int($0.1) }, "\(terminal)")
        #expect(shown == summary && shown > 0, "\(last) / \(terminal)")
    }
}
