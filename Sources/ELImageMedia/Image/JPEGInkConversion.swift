import CTurboJPEG
import ELImage

/// Decoding of four-component (CMYK and YCCK) JPEGs, which TurboJPEG cannot turn into RGB itself.
///
/// TurboJPEG decodes them to CMYK samples (YCCK converted to CMYK as libjpeg does); these become
/// R'G'B' by the naive ink model that libjpeg-based viewers and FFmpeg use, without a colour
/// profile: `R = (1 - C)(1 - K)`. Files with Adobe's `APP14` marker (Photoshop's, every YCCK
/// file, TurboJPEG's own) store the inks inverted (255 is no ink), as Adobe documents; files
/// without it store them as they are.
extension JPEGFile {
    /// True when TurboJPEG's colour space code `colorspace` (from a JPEG's header) is CMYK or YCCK.
    static func isInk(colorspace: Int32) -> Bool {
        colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
    }

    /// Decodes a CMYK or YCCK JPEG through TurboJPEG's CMYK output into RGBA (alpha 255).
    static func decodeInk(_ data: [UInt8], handle: tjhandle, width: Int, height: Int,
                          check: (Int32) throws -> Void) throws -> RGBAImage {
        var status: Int32 = -1
        let count = width * height * 4
        // Not zero-filled first: the decoder writes every byte, or fails and the array is dropped.
        var pixels = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            status = data.withUnsafeBufferPointer { jpeg in
                tjDecompress2(handle, jpeg.baseAddress, UInt(jpeg.count), output.baseAddress,
                              Int32(width), Int32(width * 4), Int32(height), Int32(TJPF_CMYK.rawValue),
                              decodeFlags)
            }
            initialized = status == 0 ? count : 0
        }
        try check(status)
        let inverted = hasAdobeMarker(data)
        for pixel in stride(from: 0, to: count, by: 4) {
            // Amounts of "no ink", 0...255: white paper is 255.
            let key = UInt32(inverted ? pixels[pixel + 3] : 255 - pixels[pixel + 3])
            for channel in 0..<3 {
                let paper = UInt32(inverted ? pixels[pixel + channel] : 255 - pixels[pixel + channel])
                pixels[pixel + channel] = UInt8((paper * key + 127) / 255)
            }
            pixels[pixel + 3] = 255
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// True when `data` has an Adobe `APP14` marker segment (`FF EE`, "Adobe") before its first
    /// scan.
    static func hasAdobeMarker(_ data: [UInt8]) -> Bool {
        var offset = 2  // past SOI
        while offset + 4 <= data.count, data[offset] == 0xFF {
            let marker = data[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return false }  // start of scan, end of image
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            guard length >= 2 else { return false }
            if marker == 0xEE, length >= 7, offset + 9 <= data.count,
               data[(offset + 4)..<(offset + 9)].elementsEqual("Adobe".utf8) {
                return true
            }
            offset += 2 + length
        }
        return false
    }
}
