import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// WebM, Matroska, animated GIF and WebP through FFmpeg's encoders, each read back by ffmpeg.
@Suite("elimage run into .webm, .mkv, .gif and .webp")
struct CodecOutputTests {
    let elimage = BuiltProgram(name: "elimage")

    /// The frames of `path` as RGB, 160×90 each: decoded by ffmpeg, or for an animated WebP (which
    /// this FFmpeg cannot decode) by Pillow, composited frame by frame; with each frame's time.
    static func decode(_ path: String) throws -> (frames: [[UInt8]], times: [Double]) {
        let data: Data, times: [Double]
        if path.hasSuffix(".webp") {
            let script = """
                import sys
                from PIL import Image, ImageSequence
                image = Image.open(sys.argv[1])
                time = 0
                with open(sys.argv[2], "wb") as frames:
                    for frame in ImageSequence.Iterator(image):
                        frames.write(frame.convert("RGB").tobytes())  # loads the frame, and its duration
                        print(time / 1000)
                        time += frame.info.get("duration", 0)
                """
            // Debian's Pillow (python3-pil), whatever python3 comes first on the PATH.
            let framesFile = path + ".rgb"
            let printed = try runTool("/usr/bin/python3", ["-c", script, path, framesFile])
            data = try Data(contentsOf: URL(fileURLWithPath: framesFile))
            times = String(decoding: printed, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Double($0) }
        } else {
            data = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            times = try EncoderFixtures.probeFrameTimes(path)
        }
        let size = 160 * 90 * 3
        return (stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<($0 + size)]) }, times)
    }

    /// FFmpeg's own encode of `clip` with the settings `FileOutput.encoded` uses.
    static func ffmpegEncode(_ clip: String, to path: String, codec: String) throws {
        let settings: [String] = switch codec {
        case "vp9": ["-c:v", "libvpx-vp9", "-crf", "31", "-b:v", "0", "-deadline", "good", "-cpu-used", "5", "-row-mt", "1"]
        case "av1": ["-c:v", "libsvtav1", "-crf", "35", "-preset", "10"]
        case "h264": ["-c:v", "libx264", "-crf", "23", "-preset", "veryfast"]
        case "webp": ["-c:v", "libwebp_anim", "-quality", "75", "-lossless", "0", "-loop", "0"]
        default: []  // GIF: FFmpeg's default, 3-3-2 colours through swscale
        }
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", clip] + settings + [path])
    }

    @Test("Each container and codec: ffprobe names the codec; every frame comes back at its time, as close to the pictures given as FFmpeg's own encode of them with the same settings",
          arguments: [("webm", nil, "vp9"), ("webm", "av1", "av1"), ("mkv", nil, "h264"), ("mkv", "vp9", "vp9"),
                      ("gif", nil, "gif"), ("webp", nil, "webp")] as [(String, String?, String)])
    func writesAndReadsBack(container: String, codec: String?, probed: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m"), output = folder.path("out.\(container)"), reference = folder.path("ffmpeg.\(container)")
        try writeTestPattern(to: clip, size: "160x90", frames: 12)
        let result = try await elimage.run(["run", clip, "-o", output] + (codec.map { ["--codec", $0] } ?? []))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("wrote 12 frames"), "\(result.output)")
        // The pictures the encoder was given: the same graph into Y4M, the lossless hand-over.
        let given = folder.path("given.y4m")
        _ = try await elimage.run(["run", clip, "-o", given])
        let name = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name",
                                                            "-of", "csv=p=0", output]), as: UTF8.self)
        #expect(name.trimmingCharacters(in: .whitespacesAndNewlines) == probed)
        try Self.ffmpegEncode(given, to: reference, codec: probed)
        let ours = try Self.decode(output), theirs = try Self.decode(reference), source = try Self.decode(given)
        #expect(ours.frames.count == 12 && theirs.frames.count == 12, "\(ours.frames.count) frames decoded, FFmpeg's \(theirs.frames.count)")
        for index in 0..<min(ours.frames.count, theirs.frames.count, source.frames.count) {
            let score = EncoderFixtures.psnr(ours.frames[index], source.frames[index])
            let floor = EncoderFixtures.psnr(theirs.frames[index], source.frames[index]) - 1
            #expect(score >= floor, "frame \(index): \(score) dB, FFmpeg's \(floor + 1) dB")
        }
        // The times: 40 ms apart, from zero (GIF counts hundredths).
        #expect(ours.times.count == 12, "\(ours.times)")
        for (index, time) in ours.times.enumerated() {
            #expect(abs(time - Double(index) * 0.04) <= 0.011, "frame \(index) at \(time) s")
        }
    }

    @Test("--codec is for .mkv and .webm, and each holds its own codecs; --crf takes the scale of the output's codec", arguments: [
        (["--codec", "av1", "-o", "out.mp4"], "--codec av1: chooses the codec of a .mkv or .webm output"),
        (["--codec", "h264", "-o", "out.webm"], "--codec h264: -o out.webm holds vp9 or av1"),
        (["--codec", "mpeg2", "-o", "out.mkv"], "'mpeg2' is invalid for '--codec <codec>'"),
        (["--crf", "64", "-o", "out.webm"], "--crf 64.0: use 0...63 for vp9"),
        (["--crf", "52", "-o", "out.mkv"], "--crf 52.0: use 0...51 for h264"),
        (["--crf", "52", "-o", "out.mp4"], "--crf 52.0: use 0...51"),
        (["--crf", "101", "-o", "out.webp"], "--crf 101.0: use 0...100 for webp"),
        (["--crf", "10", "-o", "out.gif"], "a .gif output has no quality setting"),
    ] as [([String], String)])
    func codecUsage(arguments: [String], message: String) async throws {
        let result = try await elimage.run(["run", "missing.mp4"] + arguments)
        #expect(result.status == 2)
        #expect(result.errors.contains(message), "\(result.errors)")
    }

    @Test("--crf past x264's 51 is VP9's to take: CRF 60 makes a smaller file than CRF 10")
    func crfBeyondX264() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, size: "160x90", frames: 12)
        var sizes: [Int] = []
        for crf in ["10", "60"] {
            let output = folder.path("crf\(crf).webm")
            let result = try await elimage.run(["run", clip, "--crf", crf, "-o", output])
            #expect(result.status == 0, "\(result.errors)")
            sizes.append((try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0)
        }
        #expect(sizes[1] > 0 && sizes[1] < sizes[0], "CRF 10: \(sizes[0]) bytes, CRF 60: \(sizes[1])")
    }

    @Test("FileOutput.encoded refuses an extension it does not write and a codec the container cannot hold, touching nothing")
    func libraryRefusals() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect { try FileOutput.encoded(path: folder.path("out.avi")) } throws: { "\($0)".contains(".webm, .mkv, .gif and .webp") }
        #expect { try FileOutput.encoded(path: folder.path("out.webm"), codec: .h264) } throws: { "\($0)".contains("cannot hold h264") }
        #expect { try FileOutput.encoded(path: folder.path("out.webm"), quality: 99) } throws: { "\($0)".contains("quality 99.0 for vp9") }
        let aac = try #require(try MovieAudioReader.open(path: EncoderFixtures.bunny))
        defer { aac.recordingEnded() }
        #expect { try FileOutput.encoded(path: folder.path("out.webm"), audio: .track(aac)) } throws: { "\($0)".contains("cannot hold aac sound") }
        #expect { try FileOutput.encoded(path: folder.path("out.gif"), audio: .track(aac)) } throws: { "\($0)".contains("holds no sound") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    /// Where the tone of `path` starts, in seconds from its first video frame, as a player times
    /// it: the first decoded sample above half the tone's amplitude, at its decoded frame's time.
    static func toneOnset(_ path: String) throws -> Double {
        let data = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", "48000",
                                          "-f", "f32le", "-"])
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let onset = try #require(samples.firstIndex { abs($0) > 0.25 }, "no tone in \(path)")
        func frames(_ stream: String, _ entries: String) throws -> [[Double]] {
            String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "frame=\(entries)",
                                                     "-of", "csv=p=0", path]), as: UTF8.self)
                .split(whereSeparator: \.isNewline).map { $0.split(separator: ",").compactMap { Double($0) } }
        }
        let video = try #require(try frames("v:0", "pts_time").first?.first, "no video frame in \(path)")
        var before = 0
        for frame in try frames("a:0", "pts_time,nb_samples") where frame.count == 2 {
            let count = Int(frame[1])
            if onset < before + count { return frame[0] + Double(onset - before) / 48000 - video }
            before += count
        }
        throw ELImageError.malformedMedia(file: path, frame: nil, reason: "its decoded sound is shorter than ffmpeg's")
    }

    /// From the first sound packet's start to the last one's end (Matroska states no duration).
    static func soundDuration(_ path: String) throws -> Double {
        let rows = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                            "packet=pts_time,duration_time", "-of", "csv=p=0", path]), as: UTF8.self)
        let packets = rows.split(whereSeparator: \.isNewline).map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count == 2 }
        guard let first = packets.first, let last = packets.last else { return 0 }
        return last[0] + last[1] - first[0]
    }

    @Test("A movie's sound goes into .webm as Opus and into .mkv copied, in step with the frames after -ss, cut by -t; .gif has none",
          arguments: [("webm", "opus"), ("mkv", "aac"), ("gif", nil)] as [(String, String?)])
    func keepsTheSound(container: String, codec: String?) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A tone that starts 1.5 s in: after -ss 0.5, whose first frame is at 0.52 s (25 fps),
        // 0.98 s into the output.
        let clip = folder.path("tone.mp4"), output = folder.path("out.\(container)")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=4",
                               "-f", "lavfi", "-i", "aevalsrc='if(gte(t,1.5),0.5*sin(2*PI*440*t),0)':s=48000:d=4",
                               "-c:v", "libx264", "-c:a", "aac", clip])
        let result = try await elimage.run(["run", "-i", clip, "-ss", "0.5", "-t", "2", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("wrote 50 frames"), "\(result.output)")
        let said = result.output + result.errors
        #expect(said.contains("encoding it to opus") == (container == "webm"), "\(said)")
        let names = String(decoding: try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", output]),
                           as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        guard let codec else {
            #expect(names == ["gif"])
            return
        }
        #expect(names.last == codec, "\(names)")
        let onset = try Self.toneOnset(output)
        // Within 15 ms: WebM's Opus delay moves FFmpeg's own encode by 7 ms too.
        #expect(abs(onset - 0.98) <= 0.015, "the tone starts \(onset) s after the first frame, not 0.98 s")
        let sound = try Self.soundDuration(output)
        #expect(abs(sound - 2.0) <= 0.05, "\(sound) s of sound for 2 s of video")
    }
}
