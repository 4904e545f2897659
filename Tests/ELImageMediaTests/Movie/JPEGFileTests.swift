import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// JPEGFile against ffmpeg: what we read must match ffmpeg's decode of the same JPEG, and what
// we write must decode in ffmpeg close to what we gave.

@Suite("JPEG files", .closesContexts)
struct JPEGFileTests {
    @Test("Y'CbCr planes read match ffmpeg's decode within 2 levels (4:2:0, full-range BT.601, centred chroma)")
    func readYUVMatchesFFmpeg() throws {
        let buffer = try JPEGFile.readYUV(MovieFixtures.hopperJPEG)
        #expect(buffer.format == .i420 && buffer.width == 512 && buffer.height == 600)
        #expect(buffer.colorSpace == .jpeg && buffer.chromaLocation == .center)
        // -idct int: FFmpeg's port of libjpeg's accurate integer IDCT.
        let reference = try [UInt8](MovieFixtures.ffmpeg(["-idct", "int", "-i", MovieFixtures.hopperJPEG,
                                                           "-f", "rawvideo", "-pix_fmt", "yuvj420p", "-"]))
        #expect(reference.count == buffer.data.count)
        let differences = zip(buffer.data, reference).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(max(1, differences.count))
        let worst = differences.max() ?? 255
        print("JPEG Y'CbCr vs ffmpeg: mean \(mean), max \(worst)")
        #expect(worst <= 2, "mean \(mean), max \(worst)")
    }

    @Test("RGBA read matches ffmpeg's decode + conversion (centred chroma, bilinear) within 2 levels but for IDCT rounding")
    func readRGBAMatchesFFmpeg() throws {
        let image = try JPEGFile.read(MovieFixtures.hopperJPEG)
        #expect(image.width == 512 && image.height == 600 && image.pixels.count == 512 * 600 * 4)
        #expect(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
        let filter = "scale=in_h_chr_pos=128:in_v_chr_pos=128:flags=accurate_rnd+full_chroma_int+bilinear,format=yuvj444p,"
            + "scale=in_color_matrix=bt601:in_range=pc:flags=accurate_rnd+full_chroma_int+bilinear,format=rgba"
        let reference = try [UInt8](MovieFixtures.ffmpeg(["-idct", "int", "-i", MovieFixtures.hopperJPEG, "-vf", filter,
                                                           "-f", "rawvideo", "-pix_fmt", "rgba", "-"]))
        #expect(reference.count == image.pixels.count)
        let difference = MovieFixtures.compareRGB(image.pixels, reference)
        print("JPEG RGBA vs ffmpeg: mean \(difference.mean), max \(difference.max), \(difference.over) of \(512 * 600 * 3) values over 2")
        // libjpeg-turbo and FFmpeg's IDCTs differ by 1 in a few chroma samples (see the Y'CbCr
        // test); the Cb→B gain of 1.772 turns some of those into 3 levels of blue.
        #expect(difference.mean < 0.2)
        #expect(difference.max <= 3)
        #expect(difference.over < 512 * 600 * 3 / 1000, "\(difference.over) values over 2")
    }

    @Test("Written at quality 90, ffmpeg decodes it with PSNR ≥ 35 dB against the source", arguments: [
        (JPEGFile.Subsampling.yuv420, "yuvj420p"), (.yuv444, "yuvj444p"), (.yuv422, "yuvj422p"),
    ])
    func writeDecodesInFFmpeg(subsampling: JPEGFile.Subsampling, pixelFormat: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try PNGFile.read(MovieFixtures.astronautPNG)
        let path = folder.path("astronaut.jpg")
        try JPEGFile.write(source, to: path, quality: 90, subsampling: subsampling)
        let stream = String(decoding: try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,pix_fmt,width,height",
                                                              "-of", "csv=p=0", path]), as: UTF8.self)
        #expect(stream.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg,512,512,\(pixelFormat)")
        let decoded = try [UInt8](MovieFixtures.ffmpeg(["-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"]))
        let psnr = Self.psnr(source.pixels, decoded)
        print("JPEG quality 90 \(subsampling): PSNR \(psnr) dB")
        #expect(psnr >= 35, "PSNR \(psnr) dB")
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
    }

    @Test("Encode, decode, gray: the round trip in memory")
    func encodeDecodeInMemory() throws {
        let image = RGBAImage(width: 33, height: 17, pixels: (0..<(33 * 17)).flatMap { index -> [UInt8] in
            let level = UInt8(index % 33 * 7)
            return [level, level, level, 255]
        })
        let bytes = try JPEGFile.encode(image, quality: 95, subsampling: .gray)
        #expect(bytes.starts(with: [0xFF, 0xD8]))
        let gray = try JPEGFile.decodeYUV(bytes)
        #expect(gray.format == .gray8 && gray.width == 33 && gray.height == 17)
        let decoded = try JPEGFile.decode(bytes)
        #expect(Self.psnr(image.pixels, decoded.pixels) > 40)
    }

    @Test("Errors name the file: missing, not a JPEG, cut short, bad quality")
    func errors() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: ELImageError.io(file: "/nonexistent/a.jpg", operation: "open", errno: ENOENT, hint: "check the path")) {
            try JPEGFile.read("/nonexistent/a.jpg")
        }
        let notJPEG = folder.path("picture.jpg")
        try FileManager.default.copyItem(atPath: MovieFixtures.astronautPNG, toPath: notJPEG)
        let foreign = #expect(throws: ELImageError.self) { try JPEGFile.read(notJPEG) }
        #expect(foreign?.description.contains("\(notJPEG): not a JPEG") == true)

        let cut = try MovieFixtures.truncatedCopy(of: MovieFixtures.hopperJPEG, fraction: 0.5, name: "cut.jpg", in: folder)
        let damaged = #expect(throws: ELImageError.self) { try JPEGFile.read(cut) }
        #expect(damaged?.description.contains(cut) == true)
        #expect(damaged?.description.contains("damaged or cut short") == true, "\(String(describing: damaged))")
        #expect(throws: ELImageError.self) { try JPEGFile.readYUV(cut) }

        let image = RGBAImage(width: 2, height: 2, pixels: [UInt8](repeating: 128, count: 16))
        #expect(throws: ELImageError.self) { try JPEGFile.encode(image, quality: 0) }
        #expect(throws: ELImageError.self) { try JPEGFile.write(image, to: "/nonexistent/folder/out.jpg") }
    }

    /// PSNR over R, G and B of two RGBA images.
    static func psnr(_ left: [UInt8], _ right: [UInt8]) -> Double {
        var squares = 0.0, count = 0
        for index in 0..<min(left.count, right.count) where index % 4 != 3 {
            let difference = Double(left[index]) - Double(right[index])
            squares += difference * difference
            count += 1
        }
        guard count > 0, left.count == right.count else { return 0 }
        return squares == 0 ? .infinity : 10 * log10(255 * 255 / (squares / Double(count)))
    }
}
