import ELImage
import ELImageCamera

/// Draws a frame number into tightly packed Y'CbCr (or RGB) planes: the same cells as
/// `EmulatedFrames.mark`, white for 1 and black for 0, with neutral chroma, so the number reads
/// back from the delivered RGBA (`EmulatedVideoDevice.frameNumber(in:)`).
enum EmulatedFrameMarker {
    static func mark(_ number: Int, in bytes: inout [UInt8], format: PixelFormat, width: Int, height: Int,
                     range: ColorRange) {
        let cells = min(EmulatedFrames.markerBits, width / 8)
        let rows = min(8, height)
        let planes = PixelBuffer.packedPlanes(format: format, width: width, height: height)
        let (white, black): (UInt8, UInt8) = range == .full ? (255, 0) : (235, 16)
        for cell in 0..<cells {
            let on = (number >> cell) & 1 == 1
            let luma = on ? white : black
            for y in 0..<rows {
                for x in (cell * 8)..<(cell * 8 + 8) {
                    switch format {
                    case .yuyv, .uyvy:
                        let pair = y * planes[0].bytesPerRow + (x / 2) * 4
                        let (lumaOffset, chromaOffset) = format == .yuyv ? (x % 2 == 0 ? 0 : 2, 1) : (x % 2 == 0 ? 1 : 3, 0)
                        bytes[pair + lumaOffset] = luma
                        bytes[pair + chromaOffset] = 128
                        bytes[pair + chromaOffset + 2] = 128
                    case .rgb24:
                        let offset = y * planes[0].bytesPerRow + x * 3
                        for channel in 0..<3 { bytes[offset + channel] = on ? 255 : 0 }
                    case .rgba, .bgra:
                        let offset = y * planes[0].bytesPerRow + x * 4
                        for channel in 0..<3 { bytes[offset + channel] = on ? 255 : 0 }
                    default:
                        bytes[y * planes[0].bytesPerRow + x] = luma
                    }
                }
            }
        }
        guard format.planeCount > 1, cells > 0 else { return }
        // Neutral chroma under the cells.
        let chroma = format.planeShape(1, width: width, height: height)
        let divisorX = max(1, (width + chroma.width - 1) / chroma.width)
        let divisorY = max(1, (height + chroma.height - 1) / chroma.height)
        for cy in 0..<min(chroma.height, (rows + divisorY - 1) / divisorY) {
            for cx in 0..<min(chroma.width, cells * 8 / divisorX) {
                for plane in 1..<format.planeCount {
                    let offset = planes[plane].offset + cy * planes[plane].bytesPerRow + cx * chroma.bytesPerTexel
                    for byte in 0..<chroma.bytesPerTexel { bytes[offset + byte] = 128 }
                }
            }
        }
    }
}
