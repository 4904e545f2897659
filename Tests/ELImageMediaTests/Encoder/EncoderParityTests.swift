import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run` against the FFmpeg command line with the same x264 settings, on real footage:
/// the same quality (PSNR against the source) at the same size. What differs between the two is
/// our decode → RGBA → Y'CbCr conversion path, the encoder settings we choose, and the container.
@Suite("Encoder parity with FFmpeg/libx264", .closesContexts)
struct EncoderParityTests {
    let elimage = BuiltProgram(name: "elimage")

    @Test("""
        720p at CRF 18, veryfast, at no more than 1.05x FFmpeg's size: PSNR within 0.3 dB of FFmpeg's \
        (every plane with the default matched chroma filter, Y and average with --chroma-filter average)
        """, arguments: [("bt709-limited", "average"), ("bt601-full", "average"), ("bt709-limited", "matched"),
                         ("bt601-full", "matched")])
    func matchesFFmpeg(variant: String, chromaFilter: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // 30 frames of the bundled 1280x720 clip; the second variant is full-range BT.601, as
        // phones' and webcams' MJPEG-derived footage is (lossless, so the source is exact).
        let source = folder.path("source.mkv")
        var make = ["-v", "error", "-y", "-i", EncoderFixtures.bunny, "-frames:v", "30"]
        if variant == "bt601-full" {
            make += ["-vf", "scale=out_range=full:out_color_matrix=bt601", "-pix_fmt", "yuvj420p", "-color_range", "pc",
                     "-colorspace", "bt470bg", "-color_primaries", "bt470bg", "-color_trc", "smpte170m"]
        } else {
            make += ["-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"]
        }
        _ = try runTool("ffmpeg", make + ["-c:v", "ffv1", source])

        let ours = folder.path("elimage.mp4"), theirs = folder.path("ffmpeg.mp4")
        let result = try await elimage.run(["run", source, "--crf", "18", "--preset", "veryfast",
                                            "--chroma-filter", chromaFilter, "-o", ours])
        try #require(result.status == 0, "\(result.errors)")
        _ = try runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-c:v", "libx264", "-crf", "18", "-preset", "veryfast",
                                   theirs])

        let ourQuality = try EncoderFixtures.quality(of: ours, against: source, in: folder)
        let theirQuality = try EncoderFixtures.quality(of: theirs, against: source, in: folder)
        let ourSize = try FileManager.default.attributesOfItem(atPath: ours)[.size] as? Int ?? 0
        let theirSize = try FileManager.default.attributesOfItem(atPath: theirs)[.size] as? Int ?? 1
        let ratio = Double(ourSize) / Double(theirSize)
        print("\(variant), \(chromaFilter) chroma: elimage \(ourQuality), \(ourSize) bytes; FFmpeg \(theirQuality), \(theirSize) bytes; size ratio "
              + String(format: "%.3f", ratio))
        #expect(try EncoderFixtures.decodedFrameCount(ours) == 30)
        var compared = [(ourQuality.y, theirQuality.y), (ourQuality.average, theirQuality.average)]
        if chromaFilter == "matched" { compared += [(ourQuality.u, theirQuality.u), (ourQuality.v, theirQuality.v)] }
        for (ours, theirs) in compared {
            #expect(ours >= theirs - 0.3, "\(ourQuality) vs \(theirQuality)")
        }
        #expect(ratio <= 1.05)
    }
}
