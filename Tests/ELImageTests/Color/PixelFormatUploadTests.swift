import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Every CPU pixel format, with padded strides, converts like swscale does.
@Suite("Pixel format upload", .closesContexts)
struct PixelFormatUploadTests {
    /// Our format, ffmpeg's name for the same bytes (YV12 has none: it is made by swapping planes),
    /// and the extra bytes at the end of each row.
    static let formats: [(PixelFormat, String, Int)] = [
        (.i420, "yuv420p", 0), (.yv12, "yuv420p", 7), (.nv12, "nv12", 4), (.nv21, "nv21", 5),
        (.yuyv, "yuyv422", 12), (.uyvy, "uyvy422", 6), (.i422, "yuv422p", 3), (.i444, "yuv444p", 16),
        (.gray8, "gray", 1), (.rgb24, "rgb24", 9), (.bgra, "bgra", 8), (.rgba, "rgba", 2),
    ]

    @Test("Each format matches swscale's conversion of the same bytes", arguments: 0..<formats.count)
    func format(index: Int) async throws {
        let (format, ffmpegName, padding) = Self.formats[index]
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (width, height) = (320, 240)
        // swscale takes "gray" as full range whatever in_range says, so that case is tagged full.
        let colorSpace = ColorSpace(matrix: .bt601, range: format == .gray8 ? .full : .limited)
        let photo = try SwscaleReference.rgbFile(from: ["-i", Repository.path("Examples/Media/astronaut.png")],
                                                 width: width, height: height, in: folder, name: "photo")
        let rawPath = folder.path("picture.raw")
        try SwscaleReference.yuv(fromRGB: photo.path, width: width, height: height, pixelFormat: ffmpegName,
                                 colorSpace: colorSpace, output: rawPath)
        let reference = try SwscaleReference.rgb(fromRaw: rawPath, pixelFormat: ffmpegName, width: width,
                                                 height: height, colorSpace: colorSpace)
        var packed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: rawPath)))
        if format == .yv12 {  // Y, then V before U
            let (luma, chroma) = (width * height, width * height / 4)
            packed = Array(packed[0..<luma]) + Array(packed[(luma + chroma)...]) + Array(packed[luma..<(luma + chroma)])
        }
        let buffer = try Self.padded(packed, format: format, width: width, height: height, padding: padding,
                                     colorSpace: colorSpace)
        let image = try await convertOnGPU(buffer, context: try TestContexts.make())
        let difference = ImageDifference(rgba: image.pixels, rgb: reference, width: width, height: height,
                                         include: { _, y in y < height - 2 })
        #expect(difference.meanAbsolute <= 0.5, "\(format): \(difference)")
        #expect(difference.maximum <= 2, "\(format): \(difference)")
    }

    /// Copies tightly packed planes into a buffer whose rows end in `padding` extra bytes.
    static func padded(_ packed: [UInt8], format: PixelFormat, width: Int, height: Int, padding: Int,
                       colorSpace: ColorSpace) throws -> PixelBuffer {
        var data: [UInt8] = []
        var planes: [PixelBuffer.Plane] = []
        var source = 0
        for index in 0..<format.planeCount {
            let shape = format.planeShape(index, width: width, height: height)
            planes.append(PixelBuffer.Plane(offset: data.count, bytesPerRow: shape.rowBytes + padding))
            for _ in 0..<shape.height {
                data += packed[source..<(source + shape.rowBytes)]
                data += [UInt8](repeating: 0xEE, count: padding)
                source += shape.rowBytes
            }
        }
        return try PixelBuffer(format: format, width: width, height: height, data: data, planes: planes,
                               colorSpace: colorSpace, chromaLocation: .topLeft)
    }

    @Test("Buffers that do not fit their description are errors that say why")
    func badBuffers() throws {
        #expect {
            try PixelBuffer(format: .i420, width: 0, height: 4, data: [])
        } throws: { ($0 as? ELImageError)?.description.contains("0x4 is empty") == true }
        #expect {
            try PixelBuffer(format: .i420, width: 64, height: 48, data: [UInt8](repeating: 0, count: 64 * 48))
        } throws: { ($0 as? ELImageError)?.description.contains("plane 1 of a 64x48 i420 image needs bytes up to") == true }
        #expect {
            try PixelBuffer(format: .nv12, width: 64, height: 48, data: [UInt8](repeating: 0, count: 64 * 48 * 2),
                            planes: [.init(offset: 0, bytesPerRow: 64), .init(offset: 64 * 48, bytesPerRow: 60)])
        } throws: { ($0 as? ELImageError)?.description.contains("stride 60, shorter than its 64-byte rows") == true }
        #expect {
            try PixelBuffer(format: .i420, width: 8, height: 8, data: [UInt8](repeating: 0, count: 96),
                            planes: [.init(offset: 0, bytesPerRow: 8)])
        } throws: { ($0 as? ELImageError)?.description.contains("3 planes, 1 were described") == true }
    }

    @Test("An image wider than the GPU allows is an error, not a crash")
    func oversized() async throws {
        let context = try TestContexts.make()
        let width = context.info.maximumTextureSize / 2 + 1  // RGB24 needs 3 texels a pixel
        let buffer = try PixelBuffer(format: .rgb24, width: width, height: 1)
        await #expect {
            _ = try await convertOnGPU(buffer, context: context)
        } throws: { ($0 as? ELImageError)?.description.contains("over this GPU's") == true }
    }
}
