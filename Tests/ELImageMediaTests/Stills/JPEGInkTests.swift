import CTurboJPEG
import ELImage
@testable import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// CMYK JPEGs (YCCK with Adobe's marker, as TurboJPEG and Photoshop write them) decode to the
/// pixels FFmpeg's mjpeg decoder gives.
@Suite("CMYK JPEG", .closesContexts)
struct JPEGInkTests {
    /// The astronaut photo (FFmpeg's decode, `size` x `size`) separated into inverted (Adobe) CMYK
    /// with full grey replacement: K' = max(R, G, B), C' = R * 255 / K' and so on, so that
    /// R = C' K' / 255.
    static func inks(size: Int) throws -> (rgb: [UInt8], cmyk: [UInt8]) {
        let rgb = [UInt8](try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", Repository.path("Examples/Media/astronaut.png"),
                                                 "-vf", "scale=\(size):\(size)", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
        var cmyk = [UInt8](repeating: 0, count: size * size * 4)
        for pixel in 0..<(size * size) {
            let (r, g, b) = (Int(rgb[pixel * 3]), Int(rgb[pixel * 3 + 1]), Int(rgb[pixel * 3 + 2]))
            let key = max(r, g, b, 1)
            cmyk[pixel * 4] = UInt8(min(255, (r * 255 + key / 2) / key))
            cmyk[pixel * 4 + 1] = UInt8(min(255, (g * 255 + key / 2) / key))
            cmyk[pixel * 4 + 2] = UInt8(min(255, (b * 255 + key / 2) / key))
            cmyk[pixel * 4 + 3] = UInt8(key)
        }
        return (rgb, cmyk)
    }

    /// `cmyk` compressed by TurboJPEG (which writes YCCK with an Adobe APP14 marker).
    static func compress(_ cmyk: [UInt8], size: Int, subsampling: TJSAMP) throws -> [UInt8] {
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        defer { tjFree(output) }
        let status = cmyk.withUnsafeBufferPointer { pixels in
            tjCompress2(handle, pixels.baseAddress, Int32(size), Int32(size * 4), Int32(size), Int32(TJPF_CMYK.rawValue),
                        &output, &length, Int32(subsampling.rawValue), 95, TJFLAG_ACCURATEDCT)
        }
        #expect(status == 0, "\(String(cString: tjGetErrorStr2(handle)))")
        let bytes = try #require(output)
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    /// Tolerances against FFmpeg, which scales Y'CbCr by K before its own Y'CbCr → RGB (8-bit
    /// steps in between) and upsamples 4:2:0 chroma its own way (libjpeg's is smooth, "fancy").
    static let tolerances: [(subsampling: TJSAMP, psnr: Double, maximum: Int)] = [
        (TJSAMP_444, 45, 12), (TJSAMP_420, 34, 64),
    ]

    @Test("A CMYK (YCCK, Adobe) JPEG decodes as FFmpeg decodes it, and at least as close to the picture",
          arguments: 0..<2)
    func matchesFFmpeg(case index: Int) throws {
        let (subsampling, minimumPSNR, maximumError) = Self.tolerances[index]
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let size = 128
        let (rgb, cmyk) = try Self.inks(size: size)
        let jpeg = try Self.compress(cmyk, size: size, subsampling: subsampling)
        #expect(JPEGFile.hasAdobeMarker(jpeg))
        let path = folder.path("cmyk.jpg")
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        let image = try JPEGFile.read(path)
        #expect(image.width == size && image.height == size)
        let ours = StillsReference.rgb(ofRGBA: image.pixels)
        let ffmpeg = try StillsReference.decode(path, pixelFormat: "rgb24")
        let psnr = StillsReference.psnr(ours, ffmpeg), worst = StillsReference.maximumError(ours, ffmpeg)
        #expect(psnr >= minimumPSNR, "PSNR \(psnr) dB against FFmpeg, max error \(worst)")
        #expect(worst <= maximumError, "max error \(worst) against FFmpeg, PSNR \(psnr) dB")
        // Against the picture the inks were made from (only the JPEG loss at quality 95 between):
        // an inversion or a wrong K would fall far below; FFmpeg's decode is the yardstick.
        let oursToSource = StillsReference.psnr(ours, rgb), ffmpegToSource = StillsReference.psnr(ffmpeg, rgb)
        #expect(oursToSource >= ffmpegToSource - 0.5, "to the source: ours \(oursToSource) dB, FFmpeg's \(ffmpegToSource) dB")
        #expect(oursToSource >= 33, "to the source: ours \(oursToSource) dB, FFmpeg's \(ffmpegToSource) dB")
    }

    @Test("Reading a CMYK JPEG's Y'CbCr planes is refused with a pointer to JPEGFile.read")
    func yuvRefused() throws {
        let jpeg = try Self.compress(try Self.inks(size: 32).cmyk, size: 32, subsampling: TJSAMP_444)
        #expect {
            _ = try JPEGFile.decodeYUV(jpeg, name: "cmyk.jpg")
        } throws: { error in
            "\(error)".contains("CMYK") && "\(error)".contains("JPEGFile.read")
        }
    }
}
