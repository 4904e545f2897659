import ELImage
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// 10- and 16-bit pictures through the GPU: uploaded from their words, worked on in half floats,
/// packed back into words. Checked against swscale's 16-bit conversions and by round trips.
@Suite("10- and 16-bit pictures", .closesContexts)
struct HighDepthTests {
    static let (width, height) = (320, 240)

    /// The astronaut photo as raw `pixelFormat` (an ffmpeg name) in `colorSpace`, converted by
    /// swscale from its 8-bit RGB with a gentle blur, so the 10-bit samples use their low bits.
    static func picture(_ pixelFormat: String, colorSpace: ColorSpace, in folder: TemporaryFolder) throws -> [UInt8] {
        let path = folder.path("photo-\(pixelFormat).raw")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", Repository.path("Examples/Media/astronaut.png"),
                               "-vf", "scale=\(width):\(height):flags=bicubic,format=rgb48le,gblur=sigma=0.7,"
                                   + "scale=out_color_matrix=\(SwscaleReference.name(colorSpace.matrix))"
                                   + ":out_range=\(SwscaleReference.name(colorSpace.range)):flags=accurate_rnd+full_chroma_int,"
                                   + "format=\(pixelFormat)",
                               "-frames:v", "1", "-f", "rawvideo", path])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Little-endian 16-bit words of `bytes`.
    static func words(_ bytes: [UInt8]) -> [Int] {
        stride(from: 0, to: bytes.count - 1, by: 2).map { Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8 }
    }

    /// PSNR of two sets of samples whose largest value is `peak`.
    static func psnr(_ a: [Int], _ b: [Int], peak: Double) -> Double {
        let squared = zip(a, b).reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) }
        guard squared > 0 else { return .infinity }
        return 10 * log10(peak * peak / (squared / Double(a.count)))
    }

    /// `buffer` through the GPU: uploaded, read back as `format`.
    static func roundTrip(_ buffer: PixelBuffer, as format: PixelFormat, context: RenderContext) async throws -> PixelBuffer {
        let input = RawDataInput()
        let collector = FrameCollector(format: format, colorSpace: buffer.colorSpace)
        input --> collector
        try await input.process(buffer, on: context)
        guard let result = collector.buffers.first else {
            throw ELImageError.invalidState(node: "test", reason: "no frame came out")
        }
        return result
    }

    @Test("10-bit Y'CbCr (planar and P010) goes through in half floats: every plane >= 70 dB at 10 bits",
          arguments: [(PixelFormat.i420p10, "yuv420p10le"), (.p010, "p010le")])
    func tenBitRoundTrip(format: PixelFormat, ffmpegName: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let colorSpace = ColorSpace(matrix: .bt2020, range: .limited)
        let bytes = try Self.picture(ffmpegName, colorSpace: colorSpace, in: folder)
        let buffer = try PixelBuffer(format: format, width: Self.width, height: Self.height, data: bytes,
                                     colorSpace: colorSpace, chromaLocation: .left)
        let result = try await Self.roundTrip(buffer, as: format, context: try TestContexts.make())
        let shift = format == .p010 ? 6 : 0
        let before = Self.words(bytes).map { $0 >> shift }, after = Self.words(result.data).map { $0 >> shift }
        let lumaCount = Self.width * Self.height
        let luma = Self.psnr(Array(before[..<lumaCount]), Array(after[..<lumaCount]), peak: 1023)
        let chroma = Self.psnr(Array(before[lumaCount...]), Array(after[lumaCount...]), peak: 1023)
        #expect(luma >= 70, "\(format) Y' \(luma) dB")
        #expect(chroma >= 70, "\(format) chroma \(chroma) dB")
        print("HighDepth \(format): Y' \(luma) dB, chroma \(chroma) dB")
        if format == .p010 {  // the low 6 bits stay zero
            #expect(Self.words(result.data).allSatisfy { $0 & 63 == 0 })
        }
    }

    @Test("Saturated 10-bit colours outside the RGB cube come back as they were (half floats are not clamped)",
          arguments: [[680, 664, 64], [120, 64, 960], [940, 960, 960], [64, 512, 512], [500, 100, 900], [680, 600, 64], [680, 664, 100], [700, 664, 64], [600, 664, 64], [680, 640, 64], [680, 700, 64]])
    func outsideTheCube(samples: [Int]) async throws {
        let (width, height) = (16, 8)
        func words(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).flatMap { _ in [UInt8(value & 255), UInt8(value >> 8)] }
        }
        let data = words(samples[0], width * height) + words(samples[1], width * height / 4) + words(samples[2], width * height / 4)
        let buffer = try PixelBuffer(format: .i420p10, width: width, height: height, data: data,
                                     colorSpace: ColorSpace(matrix: .bt601, range: .limited), chromaLocation: .left)
        let result = try await Self.roundTrip(buffer, as: .i420p10, context: try TestContexts.make())
        #expect(Set(Self.words(result.data)) == Set(samples), "\(samples) came back as \(Set(Self.words(result.data)))")
    }

    @Test("10-bit Y'CbCr converts as swscale's 16-bit RGB does (chroma co-sited top left, the siting swscale follows)")
    func tenBitUploadMatchesSwscale() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let colorSpace = ColorSpace(matrix: .bt709, range: .limited)
        let bytes = try Self.picture("yuv420p10le", colorSpace: colorSpace, in: folder)
        let rawPath = folder.path("photo.yuv420p10")
        try Data(bytes).write(to: URL(fileURLWithPath: rawPath))
        let reference = Self.words([UInt8](try runTool("ffmpeg", [
            "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "\(Self.width)x\(Self.height)",
            "-i", rawPath, "-vf", "scale=in_color_matrix=bt709:in_range=tv:in_h_chr_pos=0:in_v_chr_pos=0"
                + ":flags=accurate_rnd+full_chroma_int+bilinear,format=rgba64le",
            "-f", "rawvideo", "-"])))
        let buffer = try PixelBuffer(format: .i420p10, width: Self.width, height: Self.height, data: bytes,
                                     colorSpace: colorSpace, chromaLocation: .topLeft)
        let result = try await Self.roundTrip(buffer, as: .rgba64, context: try TestContexts.make())
        let ours = Self.words(result.data)
        var total = 0.0, worst = 0.0, count = 0
        for y in 2..<(Self.height - 2) {
            for x in 2..<(Self.width - 2) {
                for channel in 0..<3 {
                    let index = (y * Self.width + x) * 4 + channel
                    let difference = abs(Double(ours[index] - reference[index])) / 257  // in 8-bit levels
                    total += difference
                    worst = max(worst, difference)
                    count += 1
                }
            }
        }
        let mean = total / Double(count)
        // The tolerance of the 8-bit comparison with swscale (PixelFormatUploadTests): swscale's
        // own rounding, not ours, sets it.
        #expect(mean <= 0.5, "mean difference \(mean) 8-bit levels")
        #expect(worst <= 2, "largest difference \(worst) 8-bit levels")
        #expect(ours.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 65535 }, "alpha is opaque")
    }

    @Test("RGBA64 goes through in half floats and back, within one half-float step")
    func rgba64RoundTrip() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bytes = try Self.picture("rgba64le", colorSpace: .bt709, in: folder)
        let buffer = try PixelBuffer(format: .rgba64, width: Self.width, height: Self.height, data: bytes, colorSpace: .srgb)
        let result = try await Self.roundTrip(buffer, as: .rgba64, context: try TestContexts.make())
        let before = Self.words(bytes), after = Self.words(result.data)
        let worst = zip(before, after).map { abs($0 - $1) }.max() ?? 0
        // Half floats keep 11 significant bits: a value near 1 is within one step, 2^-11, of its word.
        #expect(worst <= 32, "largest difference \(worst) of 65535")
        #expect(Self.psnr(before, after, peak: 65535) >= 70)
    }
}
