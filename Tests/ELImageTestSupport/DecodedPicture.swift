import Foundation

/// One picture as ffmpeg decodes it from a file, plane by plane: the independent reading of what
/// an output holds, for comparing it with a stored reference.
package struct DecodedPicture: Sendable, Equatable {
    /// How the samples are laid out: FFmpeg's planar formats, so both kinds compare plane by plane.
    package enum Layout: String, Sendable {
        /// Y', Cb, Cr; chroma at half the width and height (`yuv420p`, `yuv420p10le`).
        case yuv420
        /// G, B, R, A, each at full size (`gbrap`, `gbrap16le`).
        case rgba

        package var planeNames: [String] { self == .yuv420 ? ["Y'", "Cb", "Cr"] : ["G", "B", "R", "A"] }

        /// FFmpeg's name of the layout at `bits` bits a sample.
        func pixelFormat(bits: Int) -> String {
            switch (self, bits) {
            case (.yuv420, 8): "yuv420p"
            case (.yuv420, _): "yuv420p\(bits)le"
            case (.rgba, 8): "gbrap"
            case (.rgba, _): "gbrap\(bits)le"
            }
        }

        /// Width and height of each plane of a `width`x`height` picture.
        func planeSizes(width: Int, height: Int) -> [(width: Int, height: Int)] {
            switch self {
            case .yuv420:
                let chroma = (width: (width + 1) / 2, height: (height + 1) / 2)
                return [(width, height), chroma, chroma]
            case .rgba:
                return Array(repeating: (width, height), count: 4)
            }
        }
    }

    package let layout: Layout
    /// Bits a sample: 8, 10 or 16.
    package let bits: Int
    package let width: Int
    package let height: Int
    /// The samples of each plane, row after row, in `layout.planeNames` order.
    package let planes: [[UInt16]]

    package init(layout: Layout, bits: Int, width: Int, height: Int, planes: [[UInt16]]) {
        (self.layout, self.bits, self.width, self.height, self.planes) = (layout, bits, width, height, planes)
    }

    /// Decodes `file` with ffmpeg into `layout` at `bits` bits, and checks that it holds exactly one
    /// `width`x`height` picture. `rawRGBA`: the file is raw RGBA frames (`.rgba`), which carry no size.
    package static func decode(_ file: String, as layout: Layout, bits: Int, width: Int, height: Int,
                               rawRGBA: Bool = false) async throws -> DecodedPicture {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let raw = folder.path("planes.raw")
        let input = rawRGBA ? ["-f", "rawvideo", "-pix_fmt", "rgba", "-video_size", "\(width)x\(height)", "-i", file] : ["-i", file]
        let ffmpeg = BuiltProgram(systemTool: "ffmpeg")
        let result = try await ffmpeg.run(["-nostdin", "-v", "error", "-y"] + input
                                          + ["-f", "rawvideo", "-pix_fmt", layout.pixelFormat(bits: bits), raw])
        guard result.status == 0 else {
            throw PictureMismatch("ffmpeg could not decode \(file) (exit status \(result.status)): \(result.errors)")
        }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let sizes = layout.planeSizes(width: width, height: height)
        let bytesPerSample = bits > 8 ? 2 : 1
        let expected = sizes.reduce(0) { $0 + $1.width * $1.height } * bytesPerSample
        guard bytes.count == expected else {
            throw PictureMismatch("\(file) decodes to \(bytes.count) bytes of \(layout.pixelFormat(bits: bits)), not the "
                                  + "\(expected) of one \(width)x\(height) picture: another size, or another number of pictures")
        }
        var planes: [[UInt16]] = []
        var offset = 0
        for size in sizes {
            let count = size.width * size.height
            planes.append((0..<count).map { index in
                let at = offset + index * bytesPerSample
                return bytesPerSample == 1 ? UInt16(bytes[at]) : UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
            })
            offset += count * bytesPerSample
        }
        return DecodedPicture(layout: layout, bits: bits, width: width, height: height, planes: planes)
    }

    /// The picture at half the width and height: each plane's 2x2 blocks averaged (rounded), an odd
    /// last row or column left out.
    package func halved() -> DecodedPicture {
        let sizes = layout.planeSizes(width: width, height: height)
        let halves = zip(planes, sizes).map { plane, size in
            let (halfWidth, halfHeight) = (size.width / 2, size.height / 2)
            return (0..<halfHeight * halfWidth).map { index in
                let (x, y) = (index % halfWidth * 2, index / halfWidth * 2)
                let sum = UInt32(plane[y * size.width + x]) + UInt32(plane[y * size.width + x + 1])
                    + UInt32(plane[(y + 1) * size.width + x]) + UInt32(plane[(y + 1) * size.width + x + 1])
                return UInt16((sum + 2) / 4)
            }
        }
        return DecodedPicture(layout: layout, bits: bits, width: width / 2, height: height / 2, planes: halves)
    }

    /// PSNR of each plane against `reference` (same layout, depth and size), in dB; infinity where
    /// a plane is identical.
    package func psnr(against reference: DecodedPicture) throws -> [Double] {
        guard layout == reference.layout, bits == reference.bits, width == reference.width, height == reference.height else {
            throw PictureMismatch("a \(width)x\(height) \(layout.pixelFormat(bits: bits)) picture compared with a "
                                  + "\(reference.width)x\(reference.height) \(reference.layout.pixelFormat(bits: reference.bits)) reference")
        }
        let peak = Double((1 << bits) - 1)
        return zip(planes, reference.planes).map { plane, expected in
            let squares = zip(plane, expected).reduce(0.0) { sum, pair in
                let difference = Double(pair.0) - Double(pair.1)
                return sum + difference * difference
            }
            guard squares > 0 else { return .infinity }
            return 10 * log10(peak * peak / (squares / Double(plane.count)))
        }
    }

    /// FNV-1a (64 bits) over every sample, planes in order, each as little-endian bytes at the
    /// picture's depth: equal pictures give equal checksums, a change of one sample another.
    package var checksum: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        for plane in planes {
            for sample in plane {
                add(UInt8(truncatingIfNeeded: sample))
                if bits > 8 { add(UInt8(truncatingIfNeeded: sample >> 8)) }
            }
        }
        return String(hash, radix: 16).leftPadded(to: 16)
    }

    /// Writes the picture as an image file anyone can open: Y4M for Y'CbCr, PNG (RGBA, 16 bits a
    /// sample above 8) for RGBA. ffmpeg writes it, from the raw planes, without loss.
    package func write(to file: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let raw = folder.path("planes.raw")
        var bytes: [UInt8] = []
        for sample in planes.joined() {
            bytes.append(UInt8(truncatingIfNeeded: sample))
            if bits > 8 { bytes.append(UInt8(truncatingIfNeeded: sample >> 8)) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: raw))
        let output = layout == .yuv420 ? ["-strict", "-1", "-f", "yuv4mpegpipe"] : ["-pix_fmt", bits > 8 ? "rgba64be" : "rgba", "-f", "image2"]
        let result = try await BuiltProgram(systemTool: "ffmpeg").run(
            ["-nostdin", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", layout.pixelFormat(bits: bits),
             "-video_size", "\(width)x\(height)", "-i", raw] + output + [file])
        guard result.status == 0 else {
            throw PictureMismatch("ffmpeg could not write \(file) (exit status \(result.status)): \(result.errors)")
        }
    }
}

/// A picture that is not what a check expected, or could not be read: what and where.
package struct PictureMismatch: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
