import ELImage
@testable import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// MovieDecoder on the CPU (no GPU): stream information, timestamps and pixel layouts against
// ffprobe/ffmpeg, containers, seeking, and what happens with missing, foreign, cut-short and
// corrupted files.

/// A small clip ffmpeg makes in some pixel format, and the 8-bit layout it should arrive in.
struct PixelFormatCase: Sendable, CustomTestStringConvertible {
    var ffmpegFormat: String
    var expected: PixelFormat
    /// What ffmpeg converts the clip to for the reference bytes (the same layout at 8 bits).
    var referenceFormat: String
    /// Largest difference allowed from ffmpeg's bytes (0: copied; 1: rounding of a bit-depth cut).
    var tolerance: Int
    var range: ColorRange = .limited
    var extra: [String] = []
    /// Codec and container: lossless FFV1 in Matroska (which keeps the colour tags) by default.
    var codec = "ffv1"
    var container = "mkv"
    var testDescription: String { "\(ffmpegFormat) → \(expected)" }
}

@Suite("Movie decoding", .closesContexts)
struct MovieDecoderTests {
    @Test("The bundled clip's stream information matches ffprobe")
    func bundledClipInfo() throws {
        let info = try MovieDecoder(path: MovieFixtures.bunny).info
        #expect(info.width == 1280 && info.height == 720)
        #expect(info.codecName == "h264")
        #expect(info.containerName.contains("mp4"))
        #expect(info.frameRate == Y4MHeader.Ratio(25, 1))
        #expect(info.frameCount == MovieFixtures.bunnyFrameCount)
        #expect(info.duration == MediaTime(value: 132 * 512, timescale: 12800))
        #expect(info.startTime == .zero)
        // Untagged 720-line video: BT.709, limited range, H.264's left chroma siting.
        #expect(info.colorSpace == .bt709)
        #expect(info.chromaLocation == .left)
    }

    @Test("Every frame of the bundled clip, numbered, with ffprobe's timestamps in the stream's own timescale")
    func timestampsMatchFFprobe() throws {
        let ticks = try MovieFixtures.probeTimestampTicks(MovieFixtures.bunny)
        let seconds = try MovieFixtures.probeTimestampSeconds(MovieFixtures.bunny)
        let timeBase = try MovieFixtures.probeTimeBase(MovieFixtures.bunny)
        #expect(timeBase.num == 1 && timeBase.den == 12800)
        #expect(ticks.count == MovieFixtures.bunnyFrameCount)

        let decoder = try MovieDecoder(path: MovieFixtures.bunny)
        var frames: [MovieDecoder.Frame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        #expect(frames.count == ticks.count)
        #expect(frames.map(\.number) == Array(0..<frames.count))
        #expect(frames.map(\.buffer.timestamp) == ticks.map { MediaTime(value: $0, timescale: 12800) })
        #expect(frames.allSatisfy { $0.buffer.timestamp.timescale == 12800 })
        for (frame, expected) in zip(frames, seconds) {
            #expect(abs(frame.buffer.timestamp.seconds - expected) < 0.000_001)
        }
        let first = try #require(frames.first)
        #expect(first.buffer.format == .i420 && first.buffer.width == 1280 && first.buffer.height == 720)
        #expect(first.buffer.colorSpace == .bt709 && first.buffer.chromaLocation == .left)
        #expect(first.duration == MediaTime(value: 512, timescale: 12800))
        #expect(frames.allSatisfy { !$0.isDamaged })
        #expect(try decoder.nextFrame() == nil)
    }

    @Test("Decoded planes equal ffmpeg's: 10-bit 4:2:0 as it is, other 10- and 12-bit formats cut to 8 bits within 1 level", arguments: [
        PixelFormatCase(ffmpegFormat: "yuv420p", expected: .i420, referenceFormat: "yuv420p", tolerance: 0),
        PixelFormatCase(ffmpegFormat: "yuvj420p", expected: .i420, referenceFormat: "yuvj420p", tolerance: 0, range: .full,
                        codec: "mjpeg"),
        PixelFormatCase(ffmpegFormat: "yuv422p", expected: .i422, referenceFormat: "yuv422p", tolerance: 0),
        PixelFormatCase(ffmpegFormat: "yuv444p", expected: .i444, referenceFormat: "yuv444p", tolerance: 0,
                        range: .full, extra: ["-color_range", "pc"]),
        PixelFormatCase(ffmpegFormat: "nv12", expected: .nv12, referenceFormat: "nv12", tolerance: 0,
                        codec: "rawvideo", container: "nut"),
        // ffmpeg tags gray made from RGB as full range.
        PixelFormatCase(ffmpegFormat: "gray", expected: .gray8, referenceFormat: "gray", tolerance: 0, range: .full),
        PixelFormatCase(ffmpegFormat: "yuv420p10le", expected: .i420p10, referenceFormat: "yuv420p10le", tolerance: 0),
        PixelFormatCase(ffmpegFormat: "yuv422p10le", expected: .i422, referenceFormat: "yuv422p", tolerance: 1),
        PixelFormatCase(ffmpegFormat: "yuv444p12le", expected: .i444, referenceFormat: "yuv444p", tolerance: 1),
        PixelFormatCase(ffmpegFormat: "gray10le", expected: .gray8, referenceFormat: "gray", tolerance: 1, range: .full),
    ])
    func pixelFormats(_ testCase: PixelFormatCase) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // An odd size; SD, so BT.601 when untagged.
        let clip = folder.path("clip.\(testCase.container)")
        try MovieFixtures.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10", "-vf", "scale=65:37", "-frames:v", "3",
                                  "-pix_fmt", testCase.ffmpegFormat] + testCase.extra + ["-c:v", testCase.codec, clip])
        let reference = try [UInt8](MovieFixtures.ffmpeg(["-i", clip, "-f", "rawvideo", "-pix_fmt", testCase.referenceFormat, "-"]))

        let decoder = try MovieDecoder(path: clip)
        var frames: [PixelBuffer] = []
        while let frame = try decoder.nextFrame() { frames.append(frame.buffer) }
        #expect(frames.count == 3)
        let bytes = frames.flatMap(\.data)
        #expect(bytes.count == reference.count)
        let worst = zip(bytes, reference).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= testCase.tolerance, "largest difference from ffmpeg: \(worst)")
        let first = try #require(frames.first)
        #expect(first.format == testCase.expected && first.width == 65 && first.height == 37)
        #expect(first.colorSpace.matrix == .bt601)
        #expect(first.colorSpace.range == testCase.range)
        #expect(frames.map(\.timestamp.seconds) == [0, 0.1, 0.2])
    }

    @Test("Colour tags are read: BT.2020 full range, centre chroma")
    func colorTags() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("tagged.mkv")
        try MovieFixtures.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=5", "-frames:v", "2", "-pix_fmt", "yuv420p",
                                  "-colorspace", "bt2020nc", "-color_primaries", "bt2020", "-color_trc", "smpte2084",
                                  "-color_range", "pc", "-chroma_sample_location", "center", "-c:v", "ffv1", clip])
        let decoder = try MovieDecoder(path: clip)
        let frame = try #require(try decoder.nextFrame())
        #expect(frame.buffer.colorSpace == ColorSpace(matrix: .bt2020, range: .full, primaries: .bt2020, transfer: .pq))
        #expect(frame.buffer.chromaLocation == .center)
        #expect(decoder.info.colorSpace.matrix == .bt2020)
        decoder.colorSpaceOverride = .bt601
        #expect(try decoder.nextFrame()?.buffer.colorSpace == .bt601)
    }

    @Test("Matroska, WebM (VP9), MOV and raw H.264 decode with ffprobe's frame count and timestamps",
          arguments: ["clip.mkv", "clip.webm", "clip.mov", "clip.h264"])
    func containers(name: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path(name)
        switch name {
        case "clip.webm":
            try MovieFixtures.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=30", "-frames:v", "6",
                                      "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", clip])
        case "clip.h264":
            try MovieFixtures.ffmpeg(["-i", MovieFixtures.bunny, "-frames:v", "12", "-c:v", "copy",
                                      "-bsf:v", "h264_mp4toannexb", "-f", "h264", clip])
        default:
            try MovieFixtures.ffmpeg(["-i", MovieFixtures.bunny, "-frames:v", "12", "-an", "-c:v", "copy", clip])
        }
        var seconds = try MovieFixtures.probeTimestampSeconds(clip)
        let decoder = try MovieDecoder(path: clip)
        var times: [Double] = []
        while let frame = try decoder.nextFrame() { times.append(frame.buffer.timestamp.seconds) }
        if name == "clip.h264" {
            // A raw stream has no timestamps (ffprobe prints N/A): frames are numbered at its frame rate.
            #expect(seconds.isEmpty)
            #expect(decoder.info.frameRate == Y4MHeader.Ratio(25, 1))
            seconds = (0..<12).map { Double($0) / 25 }
        }
        #expect(times.count == seconds.count)
        #expect(times.count == (name == "clip.webm" ? 6 : 12))
        for (time, expected) in zip(times, seconds) { #expect(abs(time - expected) < 0.000_001) }
        #expect(decoder.info.codecName == (name == "clip.webm" ? "vp9" : "h264"))

        // Seeking back lands on the frame, with its number and time.
        try decoder.seek(toFrame: 4)
        let fourth = try #require(try decoder.nextFrame())
        #expect(fourth.number == 4)
        #expect(abs(fourth.buffer.timestamp.seconds - seconds[4]) < 0.000_001)
    }

    @Test("seek(to:) and seek(toFrame:) land on the right frame")
    func seeking() throws {
        let decoder = try MovieDecoder(path: MovieFixtures.bunny)
        try decoder.seek(to: MediaTime(value: 2, timescale: 1))
        let atTwoSeconds = try #require(try decoder.nextFrame())
        #expect(atTwoSeconds.number == 50)
        #expect(atTwoSeconds.buffer.timestamp == MediaTime(value: 25600, timescale: 12800))
        #expect(try decoder.nextFrame()?.number == 51)

        // Between two frames: the next one.
        try decoder.seek(to: MediaTime(value: 1010, timescale: 1000))
        #expect(try decoder.nextFrame()?.number == 26)

        try decoder.seek(toFrame: 7)
        let seventh = try #require(try decoder.nextFrame())
        #expect(seventh.number == 7 && seventh.buffer.timestamp == MediaTime(value: 7 * 512, timescale: 12800))

        try decoder.seek(toFrame: 0)
        #expect(try decoder.nextFrame()?.number == 0)

        // Past the end: nothing.
        try decoder.seek(to: MediaTime(value: 10, timescale: 1))
        #expect(try decoder.nextFrame() == nil)
    }

    // MARK: Bad input

    @Test("A missing file is an I/O error naming it")
    func missingFile() throws {
        let path = "/nonexistent/folder/clip.mp4"
        #expect(throws: ELImageError.io(file: path, operation: "open", errno: ENOENT, hint: "check the path")) {
            try MovieDecoder(path: path)
        }
        let error = #expect(throws: ELImageError.self) { try MovieInput(path: path) }
        #expect(error?.description.contains(path) == true)
    }

    @Test("A text file called .mp4 is not a movie")
    func textFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("notes.mp4")
        try Data("these are notes, not a movie\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ELImageError.self) { try MovieDecoder(path: path) }
        guard case .malformedMedia(let file, let frame, let reason)? = error else {
            Issue.record("expected malformedMedia, got \(String(describing: error))")
            return
        }
        #expect(file == path && frame == nil)
        #expect(reason.contains("cannot read it as a movie"))
    }

    @Test("A PNG called .mp4 is refused as a still image")
    func pngRenamed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("picture.mp4")
        try FileManager.default.copyItem(atPath: MovieFixtures.astronautPNG, toPath: path)
        let error = #expect(throws: ELImageError.self) { try MovieDecoder(path: path) }
        #expect(error?.description.contains("\(path): it is a still image") == true, "\(String(describing: error))")
        #expect(error?.description.contains("give it a .png or .jpg name") == true)
    }

    @Test("A playlist or list posing as a movie is refused, never read through: HLS, concat", arguments: ["hls", "concat"])
    func referencingFileRefused(kind: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let elsewhere = folder.path("elsewhere.mp4")  // a movie the list names, by absolute path
        try writeTestPattern(to: elsewhere, frames: 5)
        let path = folder.path("innocent.mp4")
        let text = kind == "hls" ? "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n\(elsewhere)\n#EXT-X-ENDLIST\n"
            : "ffconcat version 1.0\nfile '\(elsewhere)'\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let words = kind == "hls" ? "it is an HLS playlist" : "it is a concat list"
        let error = #expect(throws: ELImageError.self) { try MovieDecoder(path: path) }
        #expect(error?.description.contains("\(path): \(words), which names other files") == true, "\(String(describing: error))")
        let sound = #expect(throws: ELImageError.self) { try MovieAudioReader.open(path: path) }
        #expect(sound?.description.contains(words) == true, "\(String(describing: sound))")
    }

    @Test("A file with only audio has no video stream")
    func audioOnly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("tone.m4a")
        try MovieFixtures.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=0.2", "-c:a", "aac", path])
        let error = #expect(throws: ELImageError.self) { try MovieDecoder(path: path) }
        #expect(error?.description.contains("has no video stream (streams: audio aac)") == true, "\(String(describing: error))")
    }

    @Test("A codec this FFmpeg cannot decode is named in the error")
    func unsupportedCodec() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Matroska names its codec with a string: rename AVC to an unknown codec of the same length.
        let original = folder.path("clip.mkv")
        try MovieFixtures.ffmpeg(["-i", MovieFixtures.bunny, "-frames:v", "3", "-an", "-c:v", "copy", original])
        var data = try Data(contentsOf: URL(fileURLWithPath: original))
        let codecID = Data("V_MPEG4/ISO/AVC".utf8)
        let range = try #require(data.range(of: codecID))
        data.replaceSubrange(range, with: Data("V_ELIMAGE/NONE".utf8) + Data([0x30]))
        let path = folder.path("unknown-codec.mkv")
        try data.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ELImageError.self) { try MovieDecoder(path: path) }
        guard case .malformedMedia(let file, nil, let reason)? = error else {
            Issue.record("expected malformedMedia, got \(String(describing: error))")
            return
        }
        #expect(file == path)
        #expect(reason.contains("codec") && reason.contains("no decoder"), "\(reason)")
    }

    @Test("An MP4 cut at 60 % before its index (moov at the end) cannot be opened")
    func truncatedWithoutIndex() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try MovieFixtures.truncatedCopy(of: MovieFixtures.bunny, fraction: 0.6, name: "cut.mp4", in: folder)
        let error = #expect(throws: ELImageError.self) { try MovieDecoder(path: path) }
        guard case .malformedMedia(let file, nil, let reason)? = error else {
            Issue.record("expected malformedMedia, got \(String(describing: error))")
            return
        }
        #expect(file == path)
        #expect(reason.contains("cut short"))
    }

    @Test("An MP4 with its index first, cut at 60 %: the frames before the cut, then an error naming the first missing frame")
    func truncatedAfterIndex() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let faststart = try MovieFixtures.faststartCopy(in: folder)
        let path = try MovieFixtures.truncatedCopy(of: faststart, fraction: 0.6, name: "cut.mp4", in: folder)
        // ffprobe decodes these frames of the cut file.
        let expected = try MovieFixtures.probeTimestampTicks(path).map { MediaTime(value: $0, timescale: 12800) }
        #expect(expected.count > 50 && expected.count < 100)

        let decoder = try MovieDecoder(path: path)
        var damage: [ELImageError] = []
        decoder.damageHandler = { damage.append($0) }
        var frames: [MovieDecoder.Frame] = []
        let error = #expect(throws: ELImageError.self) {
            while let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        #expect(frames.map(\.buffer.timestamp) == expected)
        guard case .malformedMedia(let file, let frame, let reason)? = error else {
            Issue.record("expected malformedMedia, got \(String(describing: error))")
            return
        }
        #expect(file == path)
        #expect(frame == frames.count, "the error names the first missing frame")
        #expect(reason.contains("cut short") && reason.contains("5.280 s"), "\(reason)")
        // The last, partial packet is reported as damage before the error.
        #expect(damage.contains { if case .malformedMedia(_, frames.count, _) = $0 { true } else { false } })
        // Asking again repeats the error.
        if let error { #expect(throws: error) { try decoder.nextFrame() } }
    }

    @Test("Garbage in the middle of mdat: every frame is decoded, the damaged one reported with its number")
    func corrupted() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: MovieFixtures.bunny)[.size] as? Int)
        let offset = size / 2, count = 4096
        let path = try MovieFixtures.corruptedCopy(offset: offset, count: count, in: folder)
        // The frame whose packet holds the garbage (this clip has no B-frames: decoding order is
        // presentation order).
        let packets = try MovieFixtures.probePacketRanges(MovieFixtures.bunny)
        let hit = try #require(packets.firstIndex { $0.overlaps(offset..<(offset + count)) })

        let decoder = try MovieDecoder(path: path, threadCount: 1)
        var damage: [ELImageError] = []
        decoder.damageHandler = { damage.append($0) }
        var frames: [MovieDecoder.Frame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        #expect(frames.count == MovieFixtures.bunnyFrameCount, "FFmpeg conceals the damage; no frame is lost")
        #expect(frames.map(\.number) == Array(0..<MovieFixtures.bunnyFrameCount))
        let reported = damage.compactMap { error -> Int? in
            if case .malformedMedia(path, let frame?, _) = error { frame } else { nil }
        }
        #expect(reported.first == hit, "damage reports: \(damage)")
        #expect(frames.filter(\.isDamaged).map(\.number).first == hit)
    }
}
