/// Rewrites the CRC of every chunk of a PNG input, so that the fuzzer's changes to a chunk reach
/// libpng's parsing of it instead of stopping at the CRC check (the mutator cannot compute CRCs,
/// and libpng is not coverage-instrumented to guide it there).
enum PNGChecksumRepair {
    /// `bytes` with each complete chunk's CRC recomputed; unchanged when they do not start with
    /// the PNG signature. The walk stops at the first chunk whose length runs past the end.
    static func repaired(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.starts(with: signature) else { return bytes }
        var result = bytes
        var offset = signature.count
        // A chunk: 4-byte big-endian length, 4-byte type, data, 4-byte CRC of type and data.
        while result.count - offset >= 12 {
            let length = result[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= result.count - offset - 12 else { break }
            let crcOffset = offset + 8 + length
            let crc = crc32(result[(offset + 4)..<crcOffset])
            for index in 0..<4 {
                result[crcOffset + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index))
            }
            offset = crcOffset + 4
        }
        return result
    }

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The CRC-32 of ISO 3309 / ITU-T V.42 that PNG uses (reflected polynomial 0xEDB88320).
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }
}
