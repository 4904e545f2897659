import ELImage
import ELImageMedia
import Foundation
import Testing

/// `elimage run` against the FFmpeg command line with the same x264 settings, on real footage:
/// the same quality (PSNR against the source) at the same size. What differs between the two is
/// our decode → RGBA → Y'CbCr conversion path, the encoder settings we choose, and the container.
@Suite("Encoder parity with FFmpeg/libx264", .closesContexts)
struct EncoderParityTests {
    let elimage = BuiltProgram(name: "elimage")

    /// PSNR per plane and FFmpeg's weighted average (4:2:0: (4 Y + U + V) / 6), from the mean
    /// squared error over all frames, as FFmpeg's `psnr` filter reports it.
    struct Quality: CustomStringConvertible {
        var y = 0.0, u = 0.0, v = 0.0, average = 0.0
        var description: String {
            String(format: "Y %.2f U %.2f V %.2f avg %.2f dB", y, u, v, average)
        }
    }

    /// Compares `encoded` with `source`, decoded by FFmpeg, frame by frame from each one's start.
    func quality(of encoded: String, against source: String, in folder: TemporaryFolder) throws -> Quality {
        let stats = folder.path("psnr-\(UUID().uuidString).log")
        _ = try runTool("ffmpeg", ["-v", "error", "-i", encoded, "-i", source,
                                   "-lavfi", "[0:v]setpts=PTS-STARTPTS[a];[1:v]setpts=PTS-STARTPTS[b];[a][b]psnr=stats_file=\(stats)",
                                   "-f", "null", "-"])
        var sums = [0.0, 0.0, 0.0], frames = 0
        for line in try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n") {
            var fields: [String: Double] = [:]
            for pair in line.split(separator: " ") {
                let parts = pair.split(separator: ":", maxSplits: 1)
                if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
            }
            guard let y = fields["mse_y"], let u = fields["mse_u"], let v = fields["mse_v"] else { continue }
            sums[0] += y; sums[1] += u; sums[2] += v
            frames += 1
        }
        try #require(frames > 0, "no PSNR lines in \(stats)")
        func psnr(_ mse: Double) -> Double { 10 * log10(255 * 255 / max(mse, 1e-12)) }
        let mse = sums.map { $0 / Double(frames) }
        return Quality(y: psnr(mse[0]), u: psnr(mse[1]), v: psnr(mse[2]),
                       average: psnr((4 * mse[0] + mse[1] + mse[2]) / 6))
    }

    @Test("""
        720p at CRF 18, veryfast, at no more than 1.05x FFmpeg's size: PSNR within 0.3 dB of FFmpeg's \
        (Y and average by default, every plane with --chroma-filter matched)
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

        let ourQuality = try quality(of: ours, against: source, in: folder)
        let theirQuality = try quality(of: theirs, against: source, in: folder)
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
