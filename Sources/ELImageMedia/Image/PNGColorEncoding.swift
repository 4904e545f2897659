import ELImage

/// Whether a PNG states how its samples are encoded (`gAMA`, `sRGB` or `iCCP` before the image
/// data).
///
/// libpng's simplified API assumes that a 16-bit PNG without such a chunk holds linear light and
/// lifts it to sRGB when reading 8 bits; writers (FFmpeg, image editors) mean sRGB-encoded
/// samples there, and FFmpeg and browsers decode them so. ELImage reads such a file as sRGB,
/// unless a `cICP` chunk says it is PQ or HLG (what ELImage writes for HDR pictures).
enum PNGColorEncoding {
    /// True when `bytes` (a PNG) has a `gAMA`, `sRGB` or `iCCP` chunk before its first `IDAT`.
    static func isStated(in bytes: [UInt8]) -> Bool {
        chunkBeforeImageData(in: bytes) { type, _ in ["gAMA", "sRGB", "iCCP"].contains(type) } != nil
    }

    /// The colour space a `cICP` chunk (PNG's third edition: H.273 code points) states for an HDR
    /// picture, PQ or HLG with known primaries; nil without one, or for other code points (an
    /// sRGB picture is read as before).
    static func statedHDR(in bytes: [UInt8]) -> ColorSpace? {
        guard let data = chunkBeforeImageData(in: bytes, where: { type, data in type == "cICP" && data.count == 4 })?.data,
              let primaries = ColorPrimaries(rawValue: Int(data[data.startIndex])),
              let transfer = TransferCharacteristics(rawValue: Int(data[data.startIndex + 1])),
              transfer == .pq || transfer == .hlg else { return nil }
        return ColorSpace(matrix: .bt2020, range: .full, primaries: primaries, transfer: transfer)
    }

    /// The first chunk before `IDAT` for which `matches` holds (its type and data), if any.
    private static func chunkBeforeImageData(
        in bytes: [UInt8], where matches: (String, ArraySlice<UInt8>) -> Bool
    ) -> (type: String, data: ArraySlice<UInt8>)? {
        guard bytes.starts(with: PNGChunkLayout.signature) else { return nil }
        var offset = PNGChunkLayout.signature.count
        // A chunk: 4-byte big-endian length, 4-byte type, the data, a 4-byte CRC.
        while bytes.count - offset >= 12 {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard type != "IDAT", type != "IEND", length <= bytes.count - offset - 12 else { return nil }
            let data = bytes[(offset + 8)..<(offset + 8 + length)]
            if matches(type, data) { return (type, data) }
            offset += 12 + length
        }
        return nil
    }
}
