import ELImage
@testable import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// The readers check the picture size a header claims against `InputLimits` before they
/// allocate for it, and read no file whole before its header.
@Suite("Input budget")
struct InputBudgetTests {
    private func message(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch { return "\(error)" }
    }

    @Test("The standard limits are in force, and limits outside their ranges are refused without change")
    func limits() {
        #expect(InputLimits.current == .standard)
        #expect(InputLimits.standard.maximumPixels == 8192 * 8192)
        #expect(message { try InputLimits.apply(InputLimits(maximumPixels: 0, maximumAllocationBytes: 1 << 30)) }
                == "a pixel limit of 0. give a limit from 1 to 268435456 pixels")
        #expect(message { try InputLimits.apply(InputLimits(maximumPixels: 100, maximumAllocationBytes: 1 << 20)) }
                == "an allocation limit of 1048576 bytes. give a limit from 16 MiB to 64 GiB")
        #expect(InputLimits.current == .standard)
    }

    @Test("A PNG claiming 12000x12000 and a JPEG claiming 10000x9000 are refused at their headers")
    func claimedSizes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let png = folder.path("big.png")
        try Data(ImageHeaders.png(width: 12000, height: 12000)).write(to: URL(fileURLWithPath: png))
        let limit = "more than the limit of 67108864 pixels a picture (8192x8192); if the picture is meant to be that large, raise the limit (elimage --max-pixels, InputLimits.maximumPixels; more: docs/SECURITY.md, “Limits” (share/doc/elimage/SECURITY.md once installed))"
        #expect(message { _ = try PNGFile.readPicture(png) } == "\(png): its PNG header gives a 12000x12000 picture, \(limit)")
        let hopper = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repository.path("Examples/Media/grace_hopper.jpg"))))
        let jpeg = folder.path("big.jpg")
        try Data(ImageHeaders.jpeg(hopper, claiming: 10000, 9000)).write(to: URL(fileURLWithPath: jpeg))
        #expect(message { _ = try JPEGFile.read(jpeg) } == "\(jpeg): its JPEG header gives a 10000x9000 picture, \(limit)")
        // The same files within the limit get as far as their data.
        let small = folder.path("small.jpg")
        try Data(ImageHeaders.jpeg(hopper, claiming: 512, 600)).write(to: URL(fileURLWithPath: small))
        #expect(try JPEGFile.read(small).width == 512)
    }

    @Test("A 2 GiB sparse file behind a 16x16 PNG header is refused before it is read")
    func sparseFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("sparse.png")
        try Data(ImageHeaders.png(width: 16, height: 16)).write(to: URL(fileURLWithPath: path))
        #expect(truncate(path, 2 << 30) == 0)
        #expect(message { _ = try PNGFile.readPicture(path) }
                == "\(path): it is 2147483648 bytes, more than its header's 16x16 picture can fill with its metadata (67110912 bytes); the file is damaged or not a PNG file")
    }

    @Test("A Y4M header or a raw size over the pixel limit is refused before a frame is allocated")
    func rawSizes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let y4m = folder.path("big.y4m")
        try Data("YUV4MPEG2 W16384 H16384 F25:1 C420jpeg\nFRAME\n".utf8).write(to: URL(fileURLWithPath: y4m))
        #expect(message { _ = try Y4MReader(path: y4m) }?
            .hasPrefix("\(y4m): its Y4M header gives a 16384x16384 picture, more than the limit of 67108864 pixels") == true)
        let raw = folder.path("big.yuv")
        try Data([0]).write(to: URL(fileURLWithPath: raw))
        #expect(message { _ = try RawYUVReader(path: raw, width: 9000, height: 9000, format: .i420, frameRate: .init(25, 1)) }?
            .hasPrefix("\(raw): its raw frame size gives a 9000x9000 picture, more than the limit of 67108864 pixels") == true)
    }

    @Test("A movie whose fragment claims 83 million samples is refused by FFmpeg's block limit, with the limit named")
    func movieBlockLimit() {
        let movie = Repository.path("Tests/Fuzz/Regressions/movie/oom-trun-claims-83M-samples.mp4")
        let text = message { _ = try MovieDecoder(path: movie) }
        #expect(text?.contains("asked for more memory than the limit of 512 MiB for one block") == true, "\(text ?? "no error")")
    }
}
