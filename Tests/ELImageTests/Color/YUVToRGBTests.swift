import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Our GPU Y'CbCr → RGB against ffmpeg's swscale with accurate rounding, for every matrix and range.
@Suite("YUV to RGB", .closesContexts)
struct YUVToRGBTests {
    static let colorSpaces: [ColorSpace] = ColorMatrix.allCases.flatMap { matrix in
        ColorRange.allCases.map { ColorSpace(matrix: matrix, range: $0) }
    }

    @Test("Colour bars match swscale at bar centres", arguments: colorSpaces)
    func bars(colorSpace: ColorSpace) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (width, height) = (448, 252)
        let bars = try SwscaleReference.rgbFile(
            from: ["-f", "lavfi", "-i", colorSpace.matrix == .bt601 ? "smptebars=size=448x252" : "smptehdbars=size=448x252"],
            width: width, height: height, in: folder, name: "bars")
        let difference = try await compare(rgbFile: bars.path, rgb: bars.pixels, width: width, height: height,
                                           colorSpace: colorSpace, folder: folder, onlyFlat: true)
        #expect(difference.compared > width * height / 3, "enough bar-centre pixels: \(difference)")
        #expect(difference.meanAbsolute <= 0.5, "\(colorSpace): \(difference)")
        #expect(difference.maximum <= 2, "\(colorSpace): \(difference)")
    }

    @Test("A real photo matches swscale everywhere", arguments: colorSpaces)
    func photo(colorSpace: ColorSpace) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (width, height) = (512, 512)
        let photo = try SwscaleReference.rgbFile(from: ["-i", Repository.path("Examples/Media/astronaut.png")],
                                                 width: width, height: height, in: folder, name: "photo")
        let difference = try await compare(rgbFile: photo.path, rgb: photo.pixels, width: width, height: height,
                                           colorSpace: colorSpace, folder: folder, onlyFlat: false)
        #expect(difference.meanAbsolute <= 0.5, "\(colorSpace): \(difference)")
        #expect(difference.maximum <= 2, "\(colorSpace): \(difference)")
    }

    /// Makes I420 of `rgbFile` with swscale, converts it back with swscale (the reference) and with
    /// our GPU path, and compares the two RGB results.
    private func compare(rgbFile: String, rgb: [UInt8], width: Int, height: Int, colorSpace: ColorSpace,
                         folder: TemporaryFolder, onlyFlat: Bool) async throws -> ImageDifference {
        let yuvPath = folder.path("picture.yuv")
        try SwscaleReference.yuv(fromRGB: rgbFile, width: width, height: height, pixelFormat: "yuv420p",
                                 colorSpace: colorSpace, output: yuvPath)
        let reference = try SwscaleReference.rgb(fromRaw: yuvPath, pixelFormat: "yuv420p", width: width, height: height,
                                                 colorSpace: colorSpace)
        let yuv = [UInt8](try Data(contentsOf: URL(fileURLWithPath: yuvPath)))
        let buffer = try PixelBuffer(format: .i420, width: width, height: height, data: yuv,
                                     colorSpace: colorSpace, chromaLocation: .topLeft)
        let context = try TestContexts.make()
        let ours = try await convertOnGPU(buffer, context: context)
        #expect(ours.width == width && ours.height == height)
        // Bar centres: pixels whose 7x7 neighbourhood in the source picture is one colour.
        func flat(_ x: Int, _ y: Int) -> Bool {
            guard x >= 3, y >= 3, x < width - 3, y < height - 3 else { return false }
            let centre = (y * width + x) * 3
            for dy in -3...3 {
                for dx in -3...3 {
                    let other = ((y + dy) * width + x + dx) * 3
                    if rgb[other] != rgb[centre] || rgb[other + 1] != rgb[centre + 1] || rgb[other + 2] != rgb[centre + 2] {
                        return false
                    }
                }
            }
            return true
        }
        // swscale extrapolates chroma below the last chroma row differently from an edge clamp: its
        // bottom two rows are left out (a model check in ChromaSitingTests covers them).
        return ImageDifference(rgba: ours.pixels, rgb: reference, width: width, height: height,
                               include: onlyFlat ? flat : { _, y in y < height - 2 })
    }
}
