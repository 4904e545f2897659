import ELImage
@testable import ELImageFuzzing
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// 16-bit PNGs (rgb48, gray16) made by FFmpeg from the astronaut photo, with and without a `gAMA`
/// chunk, read by `PNGFile` and checked against FFmpeg's 16-bit decode of the same file.
@Suite("16-bit PNG", .closesContexts)
struct PNGSixteenBitTests {
    /// A 16-bit PNG of the photo (`pixelFormat`: rgb48be or gray16be), with a `gAMA` chunk of
    /// `gamma` (PNG's 100000ths) when given, else without any colour chunk.
    static func makePNG(pixelFormat: String, gamma: UInt32?, in folder: TemporaryFolder) throws -> String {
        try makePNG(pixelFormat: pixelFormat, chunk: gamma.map { gamma in
            ("gAMA", [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: gamma >> $0) })
        }, in: folder)
    }

    /// A 16-bit PNG of the photo with the chunk `chunk` (type, data) after `IHDR` when given.
    static func makePNG(pixelFormat: String, chunk: (type: String, data: [UInt8])?, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("photo-\(pixelFormat)-\(chunk?.type ?? "none").png")
        // The photo's ICC profile is dropped: the file must state nothing about its colour.
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", Repository.path("Examples/Media/astronaut.png"),
                               "-vf", "sidedata=mode=delete:type=ICC_PROFILE,scale=256:256", "-pix_fmt", pixelFormat, path])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(!PNGColorEncodingProbe.hasColorChunk(bytes), "ffmpeg wrote a colour chunk")
        if let chunk {
            // The chunk goes right after IHDR (8-byte signature + 25-byte IHDR chunk); CRCs are recomputed.
            let length = UInt32(chunk.data.count)
            let encoded: [UInt8] = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + Array(chunk.type.utf8)
                + chunk.data + [0, 0, 0, 0]
            bytes.insert(contentsOf: encoded, at: 33)
            bytes = PNGChecksumRepair.repaired(bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    @Test("With an sRGB chunk: the samples rounded to 8 bits within 1 level (libpng's own reduction)",
          arguments: ["rgb48be", "gray16be"])
    func withSRGBChunk(pixelFormat: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.makePNG(pixelFormat: pixelFormat, chunk: ("sRGB", [0]), in: folder)
        let image = try PNGFile.read(path)
        let expected = try StillsReference.decode16(path).map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        let ours = StillsReference.rgb(ofRGBA: image.pixels)
        let worst = StillsReference.maximumError(ours, expected)
        #expect(worst <= 1, "max error \(worst), PSNR \(StillsReference.psnr(ours, expected)) dB")
    }

    @Test("Without gAMA: the samples, rounded to 8 bits, exactly as FFmpeg's 16-bit decode; no gamma lift",
          arguments: ["rgb48be", "gray16be"])
    func withoutGamma(pixelFormat: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.makePNG(pixelFormat: pixelFormat, gamma: nil, in: folder)
        let image = try PNGFile.read(path)
        let reference = try StillsReference.decode16(path)
        let expected = reference.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        let ours = StillsReference.rgb(ofRGBA: image.pixels)
        #expect(StillsReference.maximumError(ours, expected) == 0)
        #expect(StillsReference.channel(image.pixels, 3, of: 4).allSatisfy { $0 == 255 })
        // And against FFmpeg's own 8-bit decode (which may round differently): the user measured
        // 12 dB here before (grey 64 read as 136).
        let ffmpeg8 = try StillsReference.decode(path, pixelFormat: "rgb24")
        let psnr = StillsReference.psnr(ours, ffmpeg8)
        #expect(psnr >= 50, "PSNR \(psnr) dB against FFmpeg's 8-bit decode")
    }

    @Test("With gAMA: converted from the stated gamma to the output's, as libpng does, within 1 level",
          arguments: [("rgb48be", 45455 as UInt32), ("gray16be", 45455), ("rgb48be", 100000), ("gray16be", 100000),
                      ("rgb48be", 55556)])
    func withGamma(pixelFormat: String, gamma: UInt32) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.makePNG(pixelFormat: pixelFormat, gamma: gamma, in: folder)
        let image = try PNGFile.read(path)
        // FFmpeg ignores gAMA: its decode gives the samples; the file says linear = sample^(1/gamma).
        // libpng's simplified API writes 8-bit output with its sRGB gamma, a 2.2 power law (gAMA
        // 45455 is sRGB to it, and stays as it is): output = sample^(45455 / gamma).
        let exponent = 45455 / Double(gamma)
        let samples = try StillsReference.decode16(path)
        let expected = samples.map { UInt8((255 * pow(Double($0) / 65535, exponent)).rounded()) }
        let ours = StillsReference.rgb(ofRGBA: image.pixels)
        let psnr = StillsReference.psnr(ours, expected)
        #expect(psnr >= 50, "PSNR \(psnr) dB")
        // libpng's gamma tables lose precision in the deep shadows of a linear file (up to 8 levels
        // below 1/32 of full scale, where the curve is steepest); above, it rounds within 1.
        var worst = 0
        for index in ours.indices where samples[index] >= 2048 {
            worst = max(worst, abs(Int(ours[index]) - Int(expected[index])))
        }
        #expect(worst <= 1, "max error \(worst) above 1/32 of full scale, PSNR \(psnr) dB")
    }

    @Test("A 16-bit PNG with alpha: colour and alpha rounded from FFmpeg's 16-bit decode, within 1 level")
    func sixteenBitAlpha() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("rgba64.png")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", Repository.path("Examples/Media/astronaut.png"),
                               "-filter_complex",
                               "[0]sidedata=mode=delete:type=ICC_PROFILE,scale=128:128,format=rgb48be,split[c][a];[a]format=gray16be[g];[c][g]alphamerge,format=rgba64be",
                               path])
        let image = try PNGFile.read(path)
        let bytes = try StillsReference.decode(path, pixelFormat: "rgba64le")
        let reference = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt32(bytes[$0]) | UInt32(bytes[$0 + 1]) << 8 }
        let expected = reference.map { UInt8(($0 * 255 + 32767) / 65535) }
        var worst = 0
        for index in expected.indices {
            let alpha = reference[index - index % 4 + 3]
            // Colour under alpha below 1/256 has lost its precision in libpng's premultiplied form.
            guard index % 4 == 3 || alpha >= 256 else { continue }
            worst = max(worst, abs(Int(image.pixels[index]) - Int(expected[index])))
        }
        #expect(worst <= 1, "max error \(worst)")
    }
}

/// Looks for colour chunks independently of the code under test.
enum PNGColorEncodingProbe {
    static func hasColorChunk(_ bytes: [UInt8]) -> Bool {
        ["gAMA", "sRGB", "iCCP"].contains { name in
            let pattern = Array(name.utf8)
            return bytes.indices.dropLast(4).contains { bytes[$0..<($0 + 4)].elementsEqual(pattern) }
        }
    }
}
