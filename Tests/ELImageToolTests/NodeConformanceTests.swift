import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Sources and sinks through the same rules, as the filters are (`FilterConformanceTests`): every
/// raw input format and every file output of `elimage run`, at odd and extreme sizes, 1x1 to
/// 4097x3. A picture comes out whole at its size, or the run is refused with the reason and leaves
/// no file behind.
@Suite("Node conformance: every raw input format and file output at odd and extreme sizes")
struct NodeConformanceTests {
    let elimage = BuiltProgram(name: "elimage")
    static let sizes = [(1, 1), (2, 2), (3, 2), (17, 5), (4097, 3)]

    /// FFmpeg's test pattern scaled to `width` x `height`, as raw `pixelFormat` (FFmpeg's name).
    static func pattern(_ width: Int, _ height: Int, _ pixelFormat: String, into path: String) async throws {
        let made = try await BuiltProgram(systemTool: "ffmpeg").run(
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=128x64", "-frames:v", "1",
             "-vf", "scale=\(width):\(height):flags=bilinear", "-pix_fmt", pixelFormat, "-f", "rawvideo", path])
        try #require(made.status == 0, "ffmpeg: \(made.errors)")
    }

    /// `elimage run RAW --size --format` into an 8-bit PNG, decoded by ffmpeg as RGBA.
    func read(_ raw: String, format: PixelFormat, _ width: Int, _ height: Int, in folder: TemporaryFolder) async throws -> DecodedPicture {
        let png = folder.path("\(format)-\(width)x\(height).png")
        let result = try await elimage.run(["run", raw, "--size", "\(width)x\(height)", "--format", "\(format)",
                                            "--matrix", "bt601", "--range", "limited", "-o", png, "--output-depth", "8"])
        try #require(result.status == 0, "\(format) \(width)x\(height): \(result.errors)")
        return try await DecodedPicture.decode(png, as: .rgba, bits: 8, width: width, height: height)
    }

    /// Each layout, rearranged from the planar samples of its subsampling (`planar`, as FFmpeg's
    /// `yuv420p`, `yuv420p10le` or `yuv422p` hold them) by the layout's definition. (FFmpeg's own
    /// packers leave P010's chroma zero and shift YUYV's at odd widths, so they are not used.)
    static func rearranged(_ planar: [UInt8], into format: PixelFormat, _ width: Int, _ height: Int) -> [UInt8] {
        let chromaWidth = (width + 1) / 2
        let chromaHeight = format == .yuyv || format == .uyvy ? height : (height + 1) / 2
        let sample = format == .p010 ? 2 : 1
        let luma = width * height * sample, chroma = chromaWidth * chromaHeight * sample
        let y = Array(planar[0..<luma]), u = Array(planar[luma..<(luma + chroma)])
        let v = Array(planar[(luma + chroma)..<(luma + 2 * chroma)])
        func interleaved(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
            stride(from: 0, to: first.count, by: sample).flatMap { first[$0..<($0 + sample)] + second[$0..<($0 + sample)] }
        }
        /// 10-bit samples (little-endian words) moved to the top of their 16 bits, as P010 keeps them.
        func high(_ words: [UInt8]) -> [UInt8] {
            stride(from: 0, to: words.count, by: 2).flatMap { index -> [UInt8] in
                let value = (UInt16(words[index]) | UInt16(words[index + 1]) << 8) << 6
                return [UInt8(value & 0xff), UInt8(value >> 8)]
            }
        }
        switch format {
        case .yv12: return y + v + u
        case .nv12: return y + interleaved(u, v)
        case .nv21: return y + interleaved(v, u)
        case .p010: return high(y) + interleaved(high(u), high(v))
        case .yuyv, .uyvy:  // per row, a (Y0 Cb Y1 Cr) group for every two pixels; an odd last pixel repeats
            return (0..<height).flatMap { row in
                (0..<chromaWidth).flatMap { pair -> [UInt8] in
                    let first = y[row * width + 2 * pair], second = y[row * width + min(2 * pair + 1, width - 1)]
                    let (cb, cr) = (u[row * chromaWidth + pair], v[row * chromaWidth + pair])
                    return format == .yuyv ? [first, cb, second, cr] : [cb, first, cr, second]
                }
            }
        default: return planar
        }
    }

    /// The layouts of one subsampling hold the same samples: each reads as the planar one does.
    static let groups: [(planar: PixelFormat, ffmpeg: String, layouts: [PixelFormat])] = [
        (.i420, "yuv420p", [.yv12, .nv12, .nv21]),
        (.i420p10, "yuv420p10le", [.p010]),
        (.i422, "yuv422p", [.yuyv, .uyvy]),
    ]

    @Test("Each raw layout reads as the planar layout of its subsampling does, sample for sample, at every size",
          arguments: 0..<3)
    func layoutsAgree(group index: Int) async throws {
        let group = Self.groups[index]
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (width, height) in Self.sizes {
            let planar = folder.path("planar.yuv")
            try await Self.pattern(width, height, group.ffmpeg, into: planar)
            let expected = try await read(planar, format: group.planar, width, height, in: folder)
            let samples = [UInt8](try Data(contentsOf: URL(fileURLWithPath: planar)))
            for format in group.layouts {
                let raw = folder.path("\(format).yuv")
                try Data(Self.rearranged(samples, into: format, width, height)).write(to: URL(fileURLWithPath: raw))
                let picture = try await read(raw, format: format, width, height, in: folder)
                let psnr = try picture.psnr(against: expected)
                #expect(picture == expected, "\(format) at \(width)x\(height) reads otherwise than \(group.planar): PSNR \(psnr) dB")
            }
        }
    }

    @Test("4:4:4 reads as FFmpeg's swscale reads it, RGB layouts as their samples say, within a level, at every size",
          arguments: [(PixelFormat.i444, "yuv444p"), (.rgb24, "rgb24"), (.bgra, "bgra"), (.rgba, "rgba"), (.rgba64, "rgba64le")])
    func fullResolutionLayouts(format: PixelFormat, ffmpegName: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (width, height) in Self.sizes {
            let raw = folder.path("source.yuv")
            try await Self.pattern(width, height, ffmpegName, into: raw)
            let picture = try await read(raw, format: format, width, height, in: folder)
            let reference: [UInt8]
            if format == .i444 {
                reference = try SwscaleReference.rgb(fromRaw: raw, pixelFormat: ffmpegName, width: width, height: height,
                                                     colorSpace: ColorSpace(matrix: .bt601, range: .limited))
            } else {  // R, G, B of each pixel, rounded to 8 bits from 16 where the samples have 16
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
                let channels = format == .rgb24 ? 3 : 4
                let order = format == .bgra ? [2, 1, 0] : [0, 1, 2]
                reference = (0..<(width * height)).flatMap { pixel in
                    order.map { channel -> UInt8 in
                        guard format == .rgba64 else { return bytes[pixel * channels + channel] }
                        let at = (pixel * 4 + channel) * 2
                        let word = Double(UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)
                        return UInt8((word * 255 / 65535).rounded())
                    }
                }
            }
            let rgba = (0..<(width * height)).flatMap { index in
                [picture.planes[2][index], picture.planes[0][index], picture.planes[1][index], 255].map(UInt8.init)
            }
            let difference = ImageDifference(rgba: rgba, rgb: reference, width: width, height: height)
            #expect(difference.maximum <= 1, "\(format) at \(width)x\(height): \(difference)")
        }
    }

    @Test("Gray reads at every size, its picture gray", arguments: [PixelFormat.gray8])
    func gray(format: PixelFormat) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (width, height) in Self.sizes {
            let raw = folder.path("gray.yuv")
            try await Self.pattern(width, height, "gray", into: raw)
            let picture = try await read(raw, format: format, width, height, in: folder)
            #expect(picture.planes[0] == picture.planes[1] && picture.planes[1] == picture.planes[2], "\(width)x\(height)")
        }
    }

    @Test("Every file output writes the picture at odd and extreme sizes, or refuses the size by name and leaves no file",
          arguments: ["y4m", "png", "jpg", "rgba", "mp4", "h264"])
    func outputs(kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (width, height) in Self.sizes {
            let raw = folder.path("source.yuv")
            try await Self.pattern(width, height, "rgba", into: raw)
            let output = folder.path("out-\(width)x\(height).\(kind)")
            let result = try await elimage.run(["run", raw, "--size", "\(width)x\(height)", "--format", "rgba", "-o", output])
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("out-\(width)x\(height)") }
            if ["mp4", "h264"].contains(kind) && (width % 2 == 1 || height % 2 == 1) {
                #expect(result.status == 1 && result.errors.contains("needs an even width and height")
                        && result.errors.contains("\(width)x\(height)"), "\(kind) \(width)x\(height): \(result.status) \(result.errors)")
                #expect(files.isEmpty, "\(kind) \(width)x\(height) left \(files)")
                continue
            }
            try #require(result.status == 0, "\(kind) \(width)x\(height): \(result.errors)")
            #expect(files == [URL(fileURLWithPath: output).lastPathComponent], "\(files)")
            let picture = try await DecodedPicture.decode(output, as: .rgba, bits: 8, width: width, height: height, rawRGBA: kind == "rgba")
            if kind == "png" || kind == "rgba" {  // lossless: the input's samples, alpha included
                let source = try await DecodedPicture.decode(raw, as: .rgba, bits: 8, width: width, height: height, rawRGBA: true)
                let psnr = try picture.psnr(against: source)
                #expect(picture == source, "\(kind) \(width)x\(height): PSNR \(psnr) dB")
            }
        }
    }
}
