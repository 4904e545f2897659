import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// Encoding to MP4 and raw H.264, checked with ffprobe and ffmpeg as oracles.
@Suite("VideoEncoder: MP4 and H.264 output", .closesContexts)
struct VideoEncoderTests {
    /// 24 frames of Big Buck Bunny at 1280x720, 25 fps, CRF 18, BT.709 limited range.
    ///
    /// What is compared for PSNR: the input RGBA frames converted to I420 (BT.709, limited range)
    /// by ffmpeg's swscale — an independent conversion — against ffmpeg's decode of our MP4 to
    /// I420 (no conversion). The difference holds the GPU conversion's own error and x264's loss.
    @Test("720p MP4: H.264, frame count, timestamps, colour tags, PSNR >= 40 dB at CRF 18")
    func mp4At720p() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let count = 24
        let frames = try EncoderFixtures.bunnyFrames(count)
        try #require(frames.count == count)
        let context = try TestContexts.make()
        var settings = EncoderSettings()
        settings.rateControl = .constantQuality(18)
        settings.frameRate = 25
        settings.colorSpace = ColorSpace(matrix: .bt709, range: .limited, primaries: .bt709, transfer: .bt709)
        let encoder = try VideoEncoder(settings: settings)
        let pipeline = try EmbeddedPipeline(context: context, sink: encoder)
        let path = folder.path("bunny.mp4")
        try encoder.start(recordingTo: path)
        let timestamps = (0..<count).map { MediaTime(frame: Int64($0), framesPerSecond: 25) }
        try await EncoderFixtures.feed(frames, into: pipeline, timestamps: timestamps)
        let summary = try await encoder.finish()
        #expect(summary.statistics.framesIn == count)
        #expect(summary.statistics.encoded == count)
        #expect(summary.statistics.dropped == 0)
        #expect(pipeline.failures.all.isEmpty)

        let stream = try EncoderFixtures.probeStream(path)
        #expect(stream["codec_name"] == "h264")
        #expect(stream["width"] == "1280" && stream["height"] == "720")
        #expect(stream["pix_fmt"] == "yuv420p")
        #expect(stream["color_space"] == "bt709")
        #expect(stream["color_range"] == "tv")
        #expect(stream["color_primaries"] == "bt709")
        #expect(stream["color_transfer"] == "bt709")
        let times = try EncoderFixtures.probeFrameTimes(path)
        #expect(times.count == count)
        for (index, time) in times.enumerated() {
            #expect(abs(time - Double(index) / 25) < 1e-6, "frame \(index) at \(time) s")
        }

        // ffmpeg decodes it (-xerror: any decoding error fails) to I420 as stored.
        let decoded = try EncoderFixtures.decode(path, pixelFormat: "yuv420p", extra: ["-xerror"])
        let frameBytes = 1280 * 720 * 3 / 2
        try #require(decoded.count == frameBytes * count)
        let raw = folder.path("input.rgba")
        try EncoderFixtures.writeRaw(frames, to: raw)
        let reference = try runTool("ffmpeg", [
            "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "1280x720", "-i", raw,
            "-vf", "scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd+full_chroma_int+bilinear,format=yuv420p",
            "-f", "rawvideo", "-"])
        try #require(reference.count == decoded.count)
        let luma = 1280 * 720, chroma = luma / 4
        var planes: [(name: String, psnr: Double)] = []
        decoded.withUnsafeBytes { ours in
            reference.withUnsafeBytes { theirs in
                for (name, offset, size) in [("Y", 0, luma), ("Cb", luma, chroma), ("Cr", luma + chroma, chroma)] {
                    var sum = 0.0, samples = 0
                    for frame in 0..<count {
                        let range = (frame * frameBytes + offset)..<(frame * frameBytes + offset + size)
                        let error = EncoderFixtures.squaredError(UnsafeRawBufferPointer(rebasing: ours[range]),
                                                                 UnsafeRawBufferPointer(rebasing: theirs[range]))
                        sum += error.sum
                        samples += error.count
                    }
                    planes.append((name, EncoderFixtures.psnr(sum: sum, count: samples)))
                }
            }
        }
        print("720p CRF 18 PSNR vs swscale I420 of the input: "
              + planes.map { String(format: "%@ %.2f dB", $0.name, $0.psnr) }.joined(separator: ", ")
              + ", \(summary.statistics.bytesWritten) bytes")
        for plane in planes { #expect(plane.psnr >= 40, "\(plane.name) PSNR \(plane.psnr) dB") }
    }

    /// Camera-like timestamps in microseconds from an arbitrary start, with jitter and a missed
    /// frame: the MP4 keeps every interval exactly (from zero), with the zero-latency tune (no
    /// B-frames) and full-range BT.601 tags.
    @Test("variable frame rate is kept; full-range BT.601 tagged in the container and the VUI")
    func variableFrameRate() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frames = try EncoderFixtures.pannedAstronaut(width: 160, height: 120, count: 20)
        let intervals: [Int64] = [33_000, 34_000, 33_500, 66_000, 32_000]  // µs; 66 ms: a missed frame
        var time: Int64 = 5_123_456_789  // camera clock since boot
        let timestamps = (0..<frames.count).map { index -> MediaTime in
            defer { time += intervals[index % intervals.count] }
            return MediaTime(microseconds: time)
        }
        var settings = EncoderSettings()
        settings.tune = "zerolatency"
        settings.colorSpace = ColorSpace(matrix: .bt601, range: .full)
        let encoder = try VideoEncoder(settings: settings)
        let pipeline = try EmbeddedPipeline(context: context, sink: encoder)
        let path = folder.path("vfr.mp4")
        try encoder.start(recordingTo: path)
        try await EncoderFixtures.feed(frames, into: pipeline, timestamps: timestamps)
        let summary = try await encoder.finish()
        #expect(summary.timescale == 1_000_000)

        let times = try EncoderFixtures.probeFrameTimes(path)
        #expect(times.count == frames.count)
        let expected = timestamps.map { Double($0.value - timestamps[0].value) / 1e6 }
        for (index, (got, want)) in zip(times, expected).enumerated() {
            #expect(abs(got - want) < 1e-6, "frame \(index): \(got) s, expected \(want) s")
        }
        let stream = try EncoderFixtures.probeStream(path)
        #expect(stream["color_range"] == "pc")
        #expect(stream["color_space"] == "smpte170m")
        #expect(stream["color_primaries"] == "smpte170m")
        #expect(stream["color_transfer"] == "smpte170m")
        // The same tags from the H.264 VUI alone (the bitstream without the container).
        let annexB = folder.path("vfr.h264")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-c", "copy", "-bsf:v", "h264_mp4toannexb", annexB])
        let vui = try EncoderFixtures.probeStream(annexB)
        #expect(vui["color_range"] == "pc")
        #expect(vui["color_space"] == "smpte170m")
        #expect(vui["color_transfer"] == "smpte170m")
    }

    /// A movie through MovieInput: the recording keeps the file's time base and every timestamp
    /// tick for tick, and ends by itself at end-of-stream.
    @Test("a file source keeps its time base and timestamps exactly")
    func fileSourceTimestamps() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try MovieFixtures.smallClip(in: folder)
        let context = try TestContexts.make()
        let movie = try MovieInput(path: clip, options: .init(frameRange: 0..<40))
        let encoder = try VideoEncoder()
        movie --> encoder
        let path = folder.path("copy.mp4")
        try encoder.start(recordingTo: path)
        try await movie.run(on: context)
        let summary = try await encoder.finish()
        #expect(summary.reason == .endOfStream)
        #expect(summary.statistics.encoded == 40)
        #expect(try MovieFixtures.probeTimeBase(path) == (1, Int64(MovieFixtures.bunnyTimescale)))
        let original = Array(try MovieFixtures.probeTimestampTicks(clip).prefix(40))
        #expect(try MovieFixtures.probeTimestampTicks(path) == original.map { $0 - original[0] })
    }

    @Test("raw .h264 (Annex B) output decodes, with the VUI's colour tags")
    func annexBOutput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let frames = try EncoderFixtures.pannedAstronaut(width: 320, height: 240, count: 30)
        var settings = EncoderSettings()
        settings.rateControl = .constantQuality(18)
        settings.colorSpace = .bt709
        let encoder = try VideoEncoder(settings: settings)
        // What the encoder got, read back by the pipeline's collector beside it.
        let pipeline = try EmbeddedPipeline(context: context) { input in
            input --> encoder
            return input
        }
        let images = pipeline.output
        let path = folder.path("raw.h264")
        try encoder.start(recordingTo: path)  // container from the extension
        try await EncoderFixtures.feed(frames, into: pipeline)
        let summary = try await encoder.finish()
        #expect(summary.statistics.encoded == frames.count)

        let stream = try EncoderFixtures.probeStream(path)
        #expect(stream["codec_name"] == "h264")
        #expect(stream["color_space"] == "bt709")
        #expect(stream["color_range"] == "tv")
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4)
        #expect([UInt8](header) == [0, 0, 0, 1], "Annex-B start code")
        let decoded = try EncoderFixtures.decode(path, pixelFormat: "rgba", extra: ["-xerror"])
        #expect(decoded.count == 320 * 240 * 4 * frames.count)
        // The pictures are the ones sent (RGB PSNR, chroma subsampling included): 37.8 dB here, where
        // a swapped matrix or a one-sample chroma shift measures about 34 and 33.
        var sent: [UInt8] = []
        images.values.forEach { sent.append(contentsOf: $0.pixels) }
        let value = EncoderFixtures.psnr(sent, decoded)
        #expect(value > 36, "RGB PSNR \(value) dB")
    }

    @Test("settings x264 cannot use are refused up front")
    func invalidSettings() throws {
        var settings = EncoderSettings()
        settings.rateControl = .constantQuality(60)
        #expect(throws: ELImageError.self) { try VideoEncoder(settings: settings) }
        settings = EncoderSettings()
        settings.tune = "no-such-tune"
        #expect(throws: ELImageError.self) { try VideoEncoder(settings: settings) }
        settings = EncoderSettings()
        settings.profile = .baseline
        settings.bFrames = 2
        #expect(throws: ELImageError.self) { try VideoEncoder(settings: settings) }
        settings = EncoderSettings()
        settings.level = "9.9"
        #expect(throws: ELImageError.self) { try VideoEncoder(settings: settings) }
        // Numbers past x264's 32-bit fields are refused with the range, never a trap.
        settings = EncoderSettings()
        settings.keyframeInterval = 3_000_000_000
        #expect { try VideoEncoder(settings: settings) } throws: { "\($0)".contains("outside 1...1073741824") }
        for rate: EncoderSettings.RateControl in [.bitrate(kilobitsPerSecond: 9_999_999_999_999),
                                                  .bitrate(kilobitsPerSecond: 100, maximumKilobitsPerSecond: 9_999_999_999_999),
                                                  .bitrate(kilobitsPerSecond: 100, maximumKilobitsPerSecond: 100, bufferKilobits: 9_999_999_999_999)] {
            settings = EncoderSettings()
            settings.rateControl = rate
            #expect { try VideoEncoder(settings: settings) } throws: { "\($0)".contains("outside 1...10000000") }
        }
    }
}
