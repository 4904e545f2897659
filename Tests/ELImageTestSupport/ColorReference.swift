import ELImage
import Foundation

/// Reference conversions made by ffmpeg's swscale, the independent oracle for the colour tests.
package enum SwscaleReference {
    /// ffmpeg's name of a matrix for `in_color_matrix` / `out_color_matrix`.
    package static func name(_ matrix: ColorMatrix) -> String {
        switch matrix {
        case .bt601: "bt601"
        case .bt709: "bt709"
        case .bt2020: "bt2020"
        }
    }

    package static func name(_ range: ColorRange) -> String { range == .full ? "pc" : "tv" }

    /// Converts an RGB24 picture (file) to raw `pixelFormat` with `colorSpace`, by swscale.
    package static func yuv(fromRGB rgbFile: String, width: Int, height: Int, pixelFormat: String,
                    colorSpace: ColorSpace, output: String) throws {
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(width)x\(height)",
                               "-i", rgbFile, "-vf",
                               "scale=out_color_matrix=\(name(colorSpace.matrix)):out_range=\(name(colorSpace.range))"
                                   + ":flags=accurate_rnd+full_chroma_int+bilinear,format=\(pixelFormat)",
                               "-f", "rawvideo", output])
    }

    /// Converts raw `pixelFormat` to RGB24 with accurate rounding and full (bilinear) chroma
    /// interpolation, the colour space given explicitly, chroma co-sited with the top-left luma
    /// sample (`ChromaLocation.topLeft`). That is the one siting FFmpeg 5.1's swscale follows
    /// exactly: any other `in_v_chr_pos` is taken as a whole luma row down, so MPEG-2 "left" siting
    /// is checked against a CPU model instead (ChromaSitingTests).
    package static func rgb(fromRaw file: String, pixelFormat: String, width: Int, height: Int,
                    colorSpace: ColorSpace) throws -> [UInt8] {
        let filter = "scale=in_color_matrix=\(name(colorSpace.matrix)):in_range=\(name(colorSpace.range))"
            + ":in_h_chr_pos=0:in_v_chr_pos=0:flags=accurate_rnd+full_chroma_int+bilinear,format=rgb24"
        let data = try runTool("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", pixelFormat,
                                          "-s", "\(width)x\(height)", "-i", file, "-vf", filter,
                                          "-f", "rawvideo", "-"])
        return [UInt8](data)
    }

    /// An image file (PNG, or a lavfi source description) as RGB24 bytes, and where they were written.
    package static func rgbFile(from source: [String], width: Int, height: Int, in folder: TemporaryFolder,
                        name: String) throws -> (path: String, pixels: [UInt8]) {
        let path = folder.path("\(name).rgb")
        try runTool("ffmpeg", ["-v", "error", "-y"] + source
                    + ["-frames:v", "1", "-vf", "scale=\(width):\(height):flags=bilinear,format=rgb24", "-f", "rawvideo", path])
        return (path, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}

/// Per-channel error statistics between two RGB(A) images.
package struct ImageDifference: CustomStringConvertible {
    package var meanAbsolute: Double
    package var maximum: Int
    package var compared: Int

    /// Compares `rgba` (4 bytes a pixel) with `rgb` (3 bytes a pixel) at the pixels `include` accepts.
    package init(rgba: [UInt8], rgb: [UInt8], width: Int, height: Int, include: (Int, Int) -> Bool = { _, _ in true }) {
        var total = 0, worst = 0, count = 0
        for y in 0..<height {
            for x in 0..<width where include(x, y) {
                for channel in 0..<3 {
                    let difference = abs(Int(rgba[(y * width + x) * 4 + channel]) - Int(rgb[(y * width + x) * 3 + channel]))
                    total += difference
                    worst = max(worst, difference)
                    count += 1
                }
            }
        }
        meanAbsolute = count > 0 ? Double(total) / Double(count) : 0
        maximum = worst
        compared = count / 3
    }

    package var description: String {
        String(format: "mean %.3f, max %d over %d pixels", meanAbsolute, maximum, compared)
    }
}

/// Runs `buffer` through the GPU conversion and reads the RGBA result.
package func convertOnGPU(_ buffer: PixelBuffer, orientation: Orientation = .up, context: RenderContext) async throws -> RGBAImage {
    let input = RawDataInput()
    let (output, images) = imageCollector()
    input --> output
    try await input.process(buffer, orientation: orientation, on: context)
    guard let image = images.values.first else {
        throw ELImageError.invalidState(node: "test", reason: "no image came out")
    }
    return image
}
