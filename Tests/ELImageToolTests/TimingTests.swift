import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Frame rates of outputs without timestamps (Y4M, raw H.264): the source's exact rational rate or
/// --fps, variable-rate sources made constant-rate with counted repeats and drops, checked against
/// ffprobe's timestamps and ffmpeg's remux.
@Suite("elimage timing: constant-rate outputs", .closesContexts)
struct TimingTests {
    let elimage = BuiltProgram(name: "elimage")

    /// A 30-frame H.264 MP4 at `rate`, made by ffmpeg.
    func cfrClip(rate: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("cfr.mp4")
        try writeTestPattern(to: path, rate: rate, frames: 30, ["-c:v", "libx264"])
        return path
    }

    /// A variable-rate Matroska clip (1 ms time base): 25 fps, a 0.24 s gap, 0.4 s at 50 fps, 1 s
    /// at 30 fps, then 25 fps again; 90 frames.
    func vfrClip(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("vfr.mkv")
        // Whole milliseconds, so that every time base holds them exactly.
        let milliseconds = "if(lt(N,10),40*N,if(lt(N,30),600+20*(N-10),if(lt(N,60),1000+trunc((N-30)*100/3),2000+40*(N-60))))"
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25:duration=3.6",
                               "-vf", "settb=1/1000,setpts='\(milliseconds)'", "-fps_mode", "passthrough",
                               "-enc_time_base", "1:1000", "-c:v", "libx264", "-pix_fmt", "yuv420p", path])
        return path
    }

    /// The Y4M file's header line.
    func y4mHeader(_ path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let start = try handle.read(upToCount: 200) ?? Data()
        return String(decoding: start.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    func probe(_ path: String, _ entries: String, stream: Bool = true) throws -> String {
        var arguments = ["-v", "error", "-count_frames", "-show_entries", entries, "-of", "csv=p=0", path]
        if stream { arguments.insert(contentsOf: ["-select_streams", "v:0"], at: 2) }
        return String(decoding: try runTool("ffprobe", arguments), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func decodedFrames(_ path: String) throws -> Int? { Int(try probe(path, "stream=nb_read_frames")) }

    func seconds(of rate: String) -> Double {
        let parts = rate.split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 ? parts[0] / parts[1] : parts[0]
    }

    /// `ffmpeg -i path -c copy`'s duration of a raw H.264 file, from ffprobe.
    func remuxedDuration(_ h264: String, in folder: TemporaryFolder) throws -> Double? {
        let remux = folder.path("remux.mp4")
        try runTool("ffmpeg", ["-v", "error", "-y", "-i", h264, "-c", "copy", remux])
        return Double(try probe(remux, "format=duration", stream: false))
    }

    /// (duplicated, dropped) from the CLI's summary line "... (constant rate: D duplicated, P dropped)".
    func counts(in summary: String) -> (duplicated: Int, dropped: Int)? {
        guard let range = summary.range(of: "constant rate: ") else { return nil }
        let words = summary[range.upperBound...].split(whereSeparator: { $0 == " " || $0 == "," || $0 == ")" })
        guard words.count >= 4, let duplicated = Int(words[0]), let dropped = Int(words[2]) else { return nil }
        return (duplicated, dropped)
    }

    @Test("A constant-rate source keeps its exact rate in Y4M (also Y4M → Y4M) and in raw H.264's VUI",
          arguments: ["25", "30000/1001", "24000/1001"])
    func constantRateSources(rate: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try cfrClip(rate: rate, in: folder)
        let tag = "F" + rate.replacingOccurrences(of: "/", with: ":") + (rate.contains("/") ? "" : ":1")

        let y4m = folder.path("out.y4m")
        let result = try await elimage.run(["run", source, "-o", y4m])
        #expect(result.status == 0, "\(result.errors)")
        let header = try y4mHeader(y4m)
        #expect(header.split(separator: " ").contains(Substring(tag)), "\(header)")
        #expect(try decodedFrames(y4m) == 30)
        #expect(result.output.contains("0 duplicated, 0 dropped"), "\(result.output)")

        // Y4M → Y4M without a filter keeps the rate.
        let again = folder.path("again.y4m")
        let copy = try await elimage.run(["run", y4m, "-o", again])
        #expect(copy.status == 0, "\(copy.errors)")
        #expect(try y4mHeader(again).split(separator: " ").contains(Substring(tag)))
        #expect(try decodedFrames(again) == 30)

        // Raw H.264 (no B-frames with ultrafast: ffmpeg's raw-stream remux drops B-frame delay
        // from the end, also for libx264's own output): the remuxed file lasts as long as the source.
        let h264 = folder.path("out.h264")
        let encoded = try await elimage.run(["run", source, "--preset", "ultrafast", "-o", h264])
        #expect(encoded.status == 0, "\(encoded.errors)")
        #expect(try probe(h264, "stream=r_frame_rate").hasPrefix(rate.contains("/") ? rate : "\(rate)/1"))
        let sourceDuration = try #require(Double(try probe(source, "format=duration", stream: false)))
        let remuxed = try #require(try remuxedDuration(h264, in: folder))
        #expect(abs(remuxed - sourceDuration) <= 1 / seconds(of: rate) + 0.001, "remux \(remuxed) s, source \(sourceDuration) s")
    }

    @Test("A variable-rate source is made constant-rate: frames, repeats and drops from ffprobe's timestamps",
          arguments: ["25", "30000/1001", "24000/1001"])
    func variableRateSource(rate: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try vfrClip(in: folder)
        // The clip's frame gaps vary (ffprobe's packet timestamps, in its 1 ms time base).
        let ticks = try probe(source, "packet=pts").split(separator: "\n").compactMap { Int64($0) }.sorted()
        #expect(ticks.count == 90)
        let gaps = Set(zip(ticks.dropFirst(), ticks).map { $0 - $1 })
        #expect(gaps.count >= 3, "gaps \(gaps)")

        // Independently: frame i sits in slot round(t_i × rate); it fills the slots up to the next
        // frame's (none: dropped; more than one: repeated); the last frame lasts as long as the gap
        // before it, at least one slot.
        let parts = rate.split(separator: "/").compactMap { Int64($0) }
        let (numerator, denominator) = (parts[0], parts.count == 2 ? parts[1] : 1)
        func slot(_ t: Int64) -> Int64 { (2 * t * numerator + 1000 * denominator) / (2 * 1000 * denominator) }
        let slots = ticks.map(slot)
        let lastEnd = slot(2 * ticks[ticks.count - 1] - ticks[ticks.count - 2])
        var next = slots[0], duplicated = 0, dropped = 0, frames = 0
        for following in slots.dropFirst() {
            let shown = max(0, following - next)
            if shown == 0 { dropped += 1 } else { duplicated += Int(shown) - 1 }
            frames += Int(shown)
            next = max(next, following)
        }
        let tail = Int(max(1, lastEnd - next))
        frames += tail
        duplicated += tail - 1
        #expect(duplicated > 0 && dropped > 0)

        let y4m = folder.path("out.y4m")
        let result = try await elimage.run(["run", source, "--fps", rate, "-o", y4m])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try y4mHeader(y4m).split(separator: " ").contains(Substring("F\(numerator):\(denominator)")))
        #expect(try decodedFrames(y4m) == frames)
        let reported = try #require(counts(in: result.output), "\(result.output)")
        #expect(reported.duplicated == duplicated && reported.dropped == dropped,
                "reported \(reported), expected \(duplicated) duplicated, \(dropped) dropped")
        // ffmpeg -fps_mode cfr keeps a frame within ±1.1 slots of its time, so its count may differ by a frame or two.
        let ffmpegFrames = String(decoding: try runTool("ffmpeg", ["-v", "error", "-i", source, "-fps_mode", "cfr", "-r", rate,
                                                                   "-f", "framecrc", "-"]), as: UTF8.self)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        #expect(abs(ffmpegFrames - frames) <= 2, "ffmpeg \(ffmpegFrames), elimage \(frames)")

        // Raw H.264 at the same rate: the remux lasts as long as the source (within a frame).
        let h264 = folder.path("out.h264")
        let encoded = try await elimage.run(["run", source, "--fps", rate, "--preset", "ultrafast", "-o", h264])
        #expect(encoded.status == 0, "\(encoded.errors)")
        let sourceEnd = Double(ticks.last! + 40) / 1000
        let remuxed = try #require(try remuxedDuration(h264, in: folder))
        #expect(abs(remuxed - sourceEnd) <= 1 / seconds(of: rate) + 0.001, "remux \(remuxed) s, source \(sourceEnd) s")
    }

    @Test("--fps on a constant-rate Y4M: raising the rate repeats frames exactly as ffmpeg -fps_mode cfr does; lowering it keeps the duration",
          arguments: ["30000/1001", "60", "24000/1001", "12"])
    func changedRate(rate: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("clip.y4m")
        try writeTestPattern(to: source, frames: 50)
        let output = folder.path("out.y4m")
        let result = try await elimage.run(["run", source, "--fps", rate, "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let reported = try #require(counts(in: result.output), "\(result.output)")
        let frames = try #require(try decodedFrames(output))
        #expect(frames == 50 + reported.duplicated - reported.dropped)
        // ffmpeg's own counts (its -progress report on stdout).
        let progress = String(decoding: try runTool("ffmpeg", ["-v", "error", "-i", source, "-fps_mode", "cfr", "-r", rate,
                                                               "-f", "null", "-", "-progress", "pipe:1"]), as: UTF8.self)
        func last(_ key: String) -> Int? {
            progress.split(separator: "\n").last { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) }
        }
        let ffmpeg = (frames: try #require(last("frame")), duplicated: try #require(last("dup_frames")),
                      dropped: try #require(last("drop_frames")))
        if seconds(of: rate) > 25 {
            #expect(frames == ffmpeg.frames && reported.duplicated == ffmpeg.duplicated && reported.dropped == ffmpeg.dropped,
                    "elimage \(frames) frames \(reported); ffmpeg \(ffmpeg)")
        } else {
            // ffmpeg lets a frame fall up to 1.1 frames behind before it drops one, so its output
            // may run a frame or two longer; here the duration stays the source's 2 s.
            #expect(abs(frames - ffmpeg.frames) <= 2, "elimage \(frames), ffmpeg \(ffmpeg.frames)")
            #expect(abs(Double(frames) / seconds(of: rate) - 2.0) <= 1 / seconds(of: rate) + 0.001)
        }
    }

    @Test("A movie cut short, into Y4M (through the frame-rate converter): the frame the converter held back is written too, as the failed source still ends its stream")
    func failedSourceThroughConverter() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try MovieFixtures.smallClip(in: folder)  // 25 fps: no frame is repeated or left out
        let cut = try MovieFixtures.truncatedCopy(of: clip, fraction: 0.6, name: "cut.mp4", in: folder)
        let decodable = try MovieFixtures.probeTimestampTicks(cut).count  // what ffprobe decodes of it
        #expect(decodable > 50 && decodable < 120)
        let output = folder.path("out.y4m")
        let result = try await elimage.run(["run", cut, "--fps", "25", "-o", output])
        #expect(result.status != 0 && result.errors.contains("cut short"), "\(result.errors)")
        #expect(try decodedFrames(output) == decodable, "every frame decoded before the cut, the last one included")
    }

    @Test("Without --fps a variable-rate source takes the rate FFmpeg guesses (ffprobe's r_frame_rate); MP4 keeps every timestamp")
    func defaultRate() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try vfrClip(in: folder)
        let guessed = try probe(source, "stream=r_frame_rate")
        let y4m = folder.path("out.y4m")
        let result = try await elimage.run(["run", source, "-o", y4m])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try y4mHeader(y4m).split(separator: " ").contains(Substring("F" + guessed.replacingOccurrences(of: "/", with: ":"))))

        let mp4 = folder.path("out.mp4")
        let kept = try await elimage.run(["run", source, "-o", mp4])
        #expect(kept.status == 0, "\(kept.errors)")
        #expect(!kept.output.contains("constant rate"))
        let sourceTimes = try probe(source, "packet=pts_time").split(separator: "\n").compactMap { Double($0) }.sorted()
        let outputTimes = try probe(mp4, "packet=pts_time").split(separator: "\n").compactMap { Double($0) }.sorted()
        #expect(outputTimes.count == sourceTimes.count)
        #expect(zip(outputTimes, sourceTimes).allSatisfy { abs($0 - $1) < 0.0015 })
    }
}
