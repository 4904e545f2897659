import CTurboJPEG
import ELImage
import ELImageCamera

/// The pictures an emulated camera serves: a photo (or a test pattern) scaled to the mode's size
/// and encoded in its format, on the CPU: Y'CbCr with the colour space the device reports
/// (chroma averaged over each 2x1 or 2x2 block), or JPEG (4:2:2, as webcams send it).
public enum EmulatedFrames {
    /// Colour bars over a grey ramp.
    public static func testPattern(width: Int, height: Int) -> RGBAImage {
        let bars: [SIMD3<UInt8>] = [[235, 235, 235], [235, 235, 16], [16, 235, 235], [16, 235, 16],
                                    [235, 16, 235], [235, 16, 16], [16, 16, 235], [16, 16, 16]]
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                let color: SIMD3<UInt8>
                if y < height * 2 / 3 {
                    color = bars[min(bars.count - 1, x * bars.count / max(1, width))]
                } else {
                    let level = UInt8(x * 255 / max(1, width - 1))
                    color = [level, level, level]
                }
                pixels[offset] = color.x
                pixels[offset + 1] = color.y
                pixels[offset + 2] = color.z
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// `picture` resized to `width` x `height` by nearest neighbour (unchanged when it has that size).
    static func scaled(_ picture: RGBAImage, width: Int, height: Int) -> RGBAImage {
        if picture.width == width, picture.height == height { return picture }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            let sourceY = min(picture.height - 1, y * picture.height / height)
            for x in 0..<width {
                let sourceX = min(picture.width - 1, x * picture.width / width)
                let from = (sourceY * picture.width + sourceX) * 4, to = (y * width + x) * 4
                for channel in 0..<4 { pixels[to + channel] = picture.pixels[from + channel] }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Draws `number` in binary along the top-left corner: `markerBits` cells of 8x8 pixels, white
    /// for 1 and black for 0, lowest bit first.
    static let markerBits = 16

    static func mark(_ number: Int, on picture: inout RGBAImage) {
        let cells = min(markerBits, picture.width / 8)
        for cell in 0..<cells {
            let level: UInt8 = (number >> cell) & 1 == 1 ? 255 : 0
            for y in 0..<min(8, picture.height) {
                for x in (cell * 8)..<(cell * 8 + 8) {
                    let offset = (y * picture.width + x) * 4
                    picture.pixels[offset] = level
                    picture.pixels[offset + 1] = level
                    picture.pixels[offset + 2] = level
                }
            }
        }
    }

    /// The picture in `fourCC`, tightly packed (PixelBuffer.packedPlanes), or as a JPEG.
    public static func encode(_ picture: RGBAImage, as fourCC: FourCC, colorSpace: ColorSpace) throws -> [UInt8] {
        if fourCC.isJPEG { return try jpeg(picture) }
        guard let format = fourCC.pixelFormat else {
            throw ELImageError.invalidInput(what: "the emulated camera cannot make \(fourCC) frames",
                                            hint: "emulate one of the formats ELImage captures")
        }
        let width = picture.width, height = picture.height
        let conversion = YCbCrConversion.fromRGB(colorSpace)
        let m = conversion.matrix, o = conversion.offset
        // Full-resolution Y'CbCr samples, 0...255 as Float.
        var luma = [Float](repeating: 0, count: width * height)
        var cb = luma, cr = luma
        for index in 0..<(width * height) {
            let r = Float(picture.pixels[index * 4]) / 255
            let g = Float(picture.pixels[index * 4 + 1]) / 255
            let b = Float(picture.pixels[index * 4 + 2]) / 255
            // Column-major: row i is m[i], m[i + 3], m[i + 6].
            luma[index] = (m[0] * r + m[3] * g + m[6] * b + o.x) * 255
            cb[index] = (m[1] * r + m[4] * g + m[7] * b + o.y) * 255
            cr[index] = (m[2] * r + m[5] * g + m[8] * b + o.z) * 255
        }
        func byte(_ value: Float) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        /// The mean of a chroma plane over the block at (x, y) of `bw` x `bh` samples.
        func mean(_ plane: [Float], _ x: Int, _ y: Int, _ bw: Int, _ bh: Int) -> Float {
            var sum: Float = 0, count: Float = 0
            for dy in 0..<bh where y + dy < height {
                for dx in 0..<bw where x + dx < width {
                    sum += plane[(y + dy) * width + x + dx]
                    count += 1
                }
            }
            return sum / max(1, count)
        }
        func average(_ plane: [Float], _ x: Int, _ y: Int, _ bw: Int, _ bh: Int) -> UInt8 { byte(mean(plane, x, y, bw, bh)) }
        var bytes = [UInt8](repeating: 0, count: format.byteCount(width: width, height: height))
        let planes = PixelBuffer.packedPlanes(format: format, width: width, height: height)
        switch format {
        case .yuyv, .uyvy:
            let rowBytes = planes[0].bytesPerRow
            for y in 0..<height {
                for pair in 0..<((width + 1) / 2) {
                    let x = pair * 2, offset = y * rowBytes + pair * 4
                    let y0 = byte(luma[y * width + x]), y1 = byte(luma[y * width + min(x + 1, width - 1)])
                    let u = average(cb, x, y, 2, 1), v = average(cr, x, y, 2, 1)
                    let quad: [UInt8] = format == .yuyv ? [y0, u, y1, v] : [u, y0, v, y1]
                    for (index, value) in quad.enumerated() { bytes[offset + index] = value }
                }
            }
        case .p010:
            // 10-bit codes (four times the 8-bit ones, as limited-range codes scale), in the high
            // bits of little-endian words: Y', then Cb Cr pairs over 2x2 blocks.
            func store(_ value: Float, at offset: Int) {
                let word = Int(max(0, min(1023, (value * 4).rounded()))) << 6
                bytes[offset] = UInt8(word & 0xFF)
                bytes[offset + 1] = UInt8(word >> 8)
            }
            for y in 0..<height {
                for x in 0..<width { store(luma[y * width + x], at: planes[0].offset + y * planes[0].bytesPerRow + 2 * x) }
            }
            let chroma = format.planeShape(1, width: width, height: height)
            for cy in 0..<chroma.height {
                for cx in 0..<chroma.width {
                    let offset = planes[1].offset + cy * planes[1].bytesPerRow + cx * 4
                    store(mean(cb, cx * 2, cy * 2, 2, 2), at: offset)
                    store(mean(cr, cx * 2, cy * 2, 2, 2), at: offset + 2)
                }
            }
        case .gray8:
            for index in 0..<(width * height) { bytes[index] = byte(luma[index]) }
        case .rgb24:
            for index in 0..<(width * height) {
                for channel in 0..<3 { bytes[index * 3 + channel] = picture.pixels[index * 4 + channel] }
            }
        default:
            for index in 0..<(width * height) { bytes[index] = byte(luma[index]) }
            let chroma = format.planeShape(1, width: width, height: height)
            let blockWidth = (width + chroma.width - 1) / chroma.width
            let blockHeight = (height + chroma.height - 1) / chroma.height
            let (uFirst, interleaved) = (format != .yv12 && format != .nv21, format.planeCount == 2)
            for cy in 0..<chroma.height {
                for cx in 0..<chroma.width {
                    let u = average(cb, cx * blockWidth, cy * blockHeight, blockWidth, blockHeight)
                    let v = average(cr, cx * blockWidth, cy * blockHeight, blockWidth, blockHeight)
                    let (first, second) = uFirst ? (u, v) : (v, u)
                    if interleaved {
                        let offset = planes[1].offset + cy * planes[1].bytesPerRow + cx * 2
                        bytes[offset] = first
                        bytes[offset + 1] = second
                    } else {
                        bytes[planes[1].offset + cy * planes[1].bytesPerRow + cx] = first
                        bytes[planes[2].offset + cy * planes[2].bytesPerRow + cx] = second
                    }
                }
            }
        }
        return bytes
    }

    /// A baseline JFIF JPEG of `picture`, 4:2:2, quality 95.
    public static func jpeg(_ picture: RGBAImage) throws -> [UInt8] {
        guard let handle = tjInitCompress() else {
            throw ELImageError.invalidState(node: "EmulatedVideoDevice", reason: "libturbojpeg could not create a compressor")
        }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = picture.pixels.withUnsafeBufferPointer { pixels in
            tjCompress2(handle, pixels.baseAddress, Int32(picture.width), Int32(picture.width * 4), Int32(picture.height),
                        Int32(TJPF_RGBA.rawValue), &output, &size, Int32(TJSAMP_422.rawValue), 95, 0)
        }
        defer { if let output { tjFree(output) } }
        guard result == 0, let output else {
            let reason = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
            throw ELImageError.invalidState(node: "EmulatedVideoDevice", reason: "JPEG compression failed: \(reason)")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Copies tightly packed planes into `layout`'s rows (which may be padded).
    static func expand(_ packed: [UInt8], width: Int, height: Int, into layout: FrameLayout,
                       destination: UnsafeMutableRawBufferPointer) {
        guard let picture = try? PixelBuffer(format: layout.format, width: width, height: height, data: packed) else { return }
        layout.copy(picture, into: destination)
    }
}
