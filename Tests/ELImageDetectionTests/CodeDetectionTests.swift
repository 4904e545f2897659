import ELImage
import ELImageDetection
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Codes through the whole detector branch (GPU shrink, luma readback, zxing-cpp): the bundled QR
/// pictures, and EAN-13, Code 128, Data Matrix and QR symbols that zint and qrencode make here,
/// straight, rotated and small.
@Suite("Code detection", .closesContexts)
struct CodeDetectionTests {
    @Test("qrcode.png decodes to Thalassiodracon, with its four corners on the symbol")
    func bundledQRCode() async throws {
        let image = try picture(Repository.path("Examples/Media/qrcode.png"))
        let found = try await detect([image], with: CodeDetector())
        let codes = try #require(found.first).codes
        #expect(codes.map(\.text) == ["Thalassiodracon"])
        #expect(codes.first?.typeName == "qr")
        let points = try #require(codes.first?.pixelPoints)
        #expect(points.count == 4)
        for point in points {
            #expect((0...Double(image.width)).contains(point.x) && (0...Double(image.height)).contains(point.y))
        }
    }

    @Test("qrcode_rotated.png gives both of its rotated codes")
    func bundledRotatedCodes() async throws {
        let image = try picture(Repository.path("Examples/Media/qrcode_rotated.png"))
        let found = try await detect([image], with: CodeDetector())
        let codes = try #require(found.first).codes
        #expect(codes.count == 2)
        #expect(codes.allSatisfy { $0.typeName == "qr" && !$0.text.isEmpty })
    }

    /// A symbol made by zint (`-b` symbology number, modules `moduleSize` pixels wide), rotated
    /// by `degrees` and centred on a white frame of at least 640×360.
    func zintSymbol(_ symbology: Int, _ data: String, degrees: Double = 0, moduleSize: Double = 2,
                    extra: [String] = [], in folder: TemporaryFolder) throws -> RGBAImage {
        let name = "zint-\(symbology)-\(Int(degrees))-\(moduleSize).png"
        try runTool("zint", ["-b", "\(symbology)", "-d", data, "--scale=\(moduleSize / 2)", "--notext"] + extra
                    + ["-o", folder.path("raw-" + name)])
        return try placed(folder.path("raw-" + name), degrees: degrees, in: folder, name: name)
    }

    /// The picture at `path` with a white quiet zone, rotated by `degrees` (white corners), in the
    /// middle of a white frame of at least 640×360.
    func placed(_ path: String, degrees: Double, in folder: TemporaryFolder, name: String) throws -> RGBAImage {
        try generatedPicture("ffmpeg", ["-v", "error", "-y", "-i", path, "-vf",
                                        "pad=iw+80:ih+80:40:40:white,rotate=\(degrees)*PI/180:ow=hypot(iw\\,ih):oh=ow:fillcolor=white,"
                                        + "pad=max(640\\,iw):max(360\\,ih):(ow-iw)/2:(oh-ih)/2:white",
                                        "-pix_fmt", "rgba", folder.path(name)],
                             in: folder, name: name)
    }

    /// 1D codes up to the angle a scan line still crosses the whole symbol; 2D codes at any angle.
    @Test("EAN-13, Code 128, Data Matrix and QR from zint and qrencode decode to their payloads, straight and rotated",
          arguments: [(0.0, 0.0), (12.0, 30.0), (-15.0, 135.0)])
    func generatedSymbols(linearDegrees: Double, matrixDegrees: Double) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // zint symbologies: 13 EAN-13, 20 Code 128, 71 Data Matrix (square, 4-pixel modules).
        var images = [
            try zintSymbol(13, "590123412345", degrees: linearDegrees, in: folder),
            try zintSymbol(20, "ELImage-128", degrees: linearDegrees, in: folder),
            try zintSymbol(71, "ELImage DataMatrix", degrees: matrixDegrees, moduleSize: 4, extra: ["--square"], in: folder),
        ]
        try runTool("qrencode", ["-s", "3", "-m", "2", "-o", folder.path("qr-raw.png"), "ELImage QR"])
        images.append(try placed(folder.path("qr-raw.png"), degrees: matrixDegrees, in: folder, name: "qr.png"))
        let found = try await detect(images, with: CodeDetector())
        #expect(found.map { $0.codes.map(\.text) } == [["5901234123457"], ["ELImage-128"], ["ELImage DataMatrix"], ["ELImage QR"]])
        #expect(found.map { $0.codes.map(\.typeName) } == [["ean13"], ["code128"], ["datamatrix"], ["qr"]])
    }

    /// (zxing-cpp 1.4 does not read an EAN-13 with 1-pixel modules; it does with 2.)
    @Test("Small codes: 1-pixel Code 128 and 2-pixel Data Matrix modules at 640×360, and 2-pixel QR modules in a 1280×720 frame shrunk to 640×360")
    func smallSymbols() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let linear = [
            try zintSymbol(20, "tiny 128", moduleSize: 1, in: folder),
        ]
        // Placed without ffmpeg's rotate filter, whose half-pixel shift blurs 2-pixel modules.
        try runTool("zint", ["-b", "71", "--square", "-d", "tiny DM", "--scale=1", "-o", folder.path("dm.png")])
        let matrix = composed(try picture(folder.path("dm.png")), at: 300, 160, canvas: 640, 360, fill: [255, 255, 255, 255])
        try runTool("qrencode", ["-s", "4", "-m", "4", "-o", folder.path("qr.png"), "small QR"])
        let frame = composed(try picture(folder.path("qr.png")), at: 580, 300, canvas: 1280, 720, fill: [255, 255, 255, 255])
        let found = try await detect(linear + [matrix, frame], with: CodeDetector())
        #expect(found.map { $0.codes.map(\.text) } == [["tiny 128"], ["tiny DM"], ["small QR"]])
        // The corners come back in the 1280×720 frame's pixels.
        let corners = try #require(found.last?.codes.first?.pixelPoints)
        #expect(corners.allSatisfy { (570...720).contains($0.x) && (290...440).contains($0.y) }, "\(corners)")
    }
}
