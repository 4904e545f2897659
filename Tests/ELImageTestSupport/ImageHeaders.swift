/// The first bytes of image files that claim a size, for tests of what readers do before they
/// decode: the data after them is absent.
package enum ImageHeaders {
    /// A PNG signature, an `IHDR` chunk stating `width` x `height` (8-bit RGB) with its right
    /// CRC, and `IEND`.
    package static func png(width: Int, height: Int) -> [UInt8] {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(data.count) + body + bigEndian(Int(crc32(body)))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IEND", [])
    }

    /// `jpeg` with the size in its first frame header (`SOFn`) replaced by `width` x `height`.
    package static func jpeg(_ jpeg: [UInt8], claiming width: Int, _ height: Int) -> [UInt8] {
        var bytes = jpeg
        var offset = 2
        while offset + 9 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                bytes[offset + 5] = UInt8(height >> 8); bytes[offset + 6] = UInt8(height & 0xFF)
                bytes[offset + 7] = UInt8(width >> 8); bytes[offset + 8] = UInt8(width & 0xFF)
                return bytes
            }
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return bytes
    }

    /// The CRC-32 of PNG chunks (ISO 3309, reflected, polynomial 0xEDB88320).
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
