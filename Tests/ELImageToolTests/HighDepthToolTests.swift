import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run` keeps 10 bits and HDR by default, as a user runs it: a 10-bit input gives 10-bit
/// files, `--output-depth 8` asks for 8, `--filter tonemap` makes SDR.
@Suite("elimage tool: 10-bit and HDR")
struct HighDepthToolTests {
    let elimage = BuiltProgram(name: "elimage")

    /// `frames` 10-bit 4:2:0 frames of FFmpeg's test pattern, PQ BT.2020 tagged, in a Matroska file (FFV1).
    static func hdrClip(in folder: TemporaryFolder, frames: Int = 6) throws -> String {
        let path = folder.path("hdr.mkv")
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25",
                                   "-frames:v", "\(frames)", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020",
                                   "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-c:v", "ffv1", path])
        return path
    }

    static func probe(_ path: String, _ entries: String) throws -> String {
        String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", entries,
                                                 "-of", "csv=p=0", path]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("--crf 0 is lossless at 8 and 10 bits: High 4:4:4 Predictive, every sample the Y4M output holds", arguments: [8, 10])
    func losslessAtEitherDepth(depth: Int) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = Repository.path("Tests/References/Inputs/in\(depth).y4m")
        let mp4 = folder.path("lossless.mp4"), y4m = folder.path("plain.y4m")
        for (output, options) in [(mp4, ["--crf", "0"]), (y4m, [])] {
            let result = try await elimage.run(["run", source, "--filter", "blur", "-o", output, "--output-depth", "\(depth)"] + options)
            #expect(result.status == 0, "\(output): \(result.errors)")
        }
        #expect(try Self.probe(mp4, "stream=profile") == "High 4:4:4 Predictive")
        let encoded = try await DecodedPicture.decode(mp4, as: .yuv420, bits: depth, width: 160, height: 120)
        let written = try await DecodedPicture.decode(y4m, as: .yuv420, bits: depth, width: 160, height: 120)
        #expect(encoded.planes.map(\.count) == [19200, 4800, 4800])
        let psnr = try encoded.psnr(against: written)
        #expect(encoded == written, "PSNR \(psnr) dB")
    }

    @Test("A 10-bit PQ movie into .mp4, .y4m and .png keeps 10 bits (16 in PNG) and its tags; --output-depth 8 gives 8")
    func keepsDepth() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.hdrClip(in: folder)
        let mp4 = folder.path("out.mp4"), y4m = folder.path("out.y4m"), png = folder.path("out.png"), eight = folder.path("eight.mp4")
        for output in [mp4, y4m, png] {
            let result = try await elimage.run(["run", source, "-o", output])
            #expect(result.status == 0, "\(output): \(result.errors)")
        }
        #expect(try Self.probe(mp4, "stream=profile,pix_fmt,color_transfer,color_primaries") == "High 10,yuv420p10le,smpte2084,bt2020")
        #expect(try Self.probe(y4m, "stream=pix_fmt") == "yuv420p10le")
        #expect(try Self.probe(png, "stream=pix_fmt") == "rgb48be")
        let result = try await elimage.run(["run", source, "--output-depth", "8", "-o", eight])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try Self.probe(eight, "stream=profile,pix_fmt") == "High,yuv420p")
        let refused = try await elimage.run(["run", source, "--output-depth", "12", "-o", eight])
        #expect(refused.status != 0 && refused.errors.contains("--output-depth 12: use 8 or 10"), "\(refused.errors)")
    }

    @Test("--filter tonemap makes SDR: the recording is tagged BT.709 throughout, and an 8-bit input stays 8-bit")
    func toneMapsToSDR() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.hdrClip(in: folder)
        let output = folder.path("sdr.mp4")
        let result = try await elimage.run(["run", source, "--filter", "tonemap", "--output-depth", "8", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try Self.probe(output, "stream=pix_fmt,color_space,color_transfer,color_primaries") == "yuv420p,bt709,bt709,bt709")
        // An SDR input: the filter passes it through, the file stays 8-bit BT.709.
        let clip = folder.path("sdr.y4m"), again = folder.path("again.mp4")
        try writeTestPattern(to: clip, frames: 3)
        let passed = try await elimage.run(["run", clip, "--filter", "tonemap", "-o", again])
        #expect(passed.status == 0, "\(passed.errors)")
        #expect(try Self.probe(again, "stream=profile,pix_fmt") == "High,yuv420p")
    }
}
