/// Whether a PNG states how its samples are encoded (`gAMA`, `sRGB` or `iCCP` before the image
/// data).
///
/// libpng's simplified API assumes that a 16-bit PNG without such a chunk holds linear light and
/// lifts it to sRGB when reading 8 bits; writers (FFmpeg, image editors) mean sRGB-encoded
/// samples there, and FFmpeg and browsers decode them so. ELImage reads such a file as sRGB.
enum PNGColorEncoding {
    /// True when `bytes` (a PNG) has a `gAMA`, `sRGB` or `iCCP` chunk before its first `IDAT`.
    static func isStated(in bytes: [UInt8]) -> Bool {
        guard bytes.starts(with: PNGChunkLayout.signature) else { return false }
        var offset = PNGChunkLayout.signature.count
        // A chunk: 4-byte big-endian length, 4-byte type, the data, a 4-byte CRC.
        while bytes.count - offset >= 12 {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            switch type {
            case "gAMA", "sRGB", "iCCP": return true
            case "IDAT", "IEND": return false
            default: break
            }
            guard length <= bytes.count - offset - 12 else { return false }
            offset += 12 + length
        }
        return false
    }
}
