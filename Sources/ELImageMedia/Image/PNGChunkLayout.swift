import ELImage

/// Checks that the chunks of a PNG fit in its bytes before libpng reads them.
///
/// libpng allocates a buffer of the length a chunk header states before it reads the chunk: a
/// 107-byte file whose `sPLT` chunk claimed 1.9 GB made it allocate 1.9 GB (found by fuzzing).
/// A chunk longer than the rest of the file can only be damage, so it is refused here, with where
/// it is; every allocation libpng then makes for a chunk is bounded by the file's size.
enum PNGChunkLayout {
    /// The 8 bytes every PNG starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The picture size a PNG's `IHDR` chunk states, from the file's first 24 bytes; nil when they
    /// are not a PNG's.
    static func statedSize(in head: [UInt8]) -> (width: Int, height: Int)? {
        guard head.count >= 24, head.starts(with: signature), head[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        let width = head[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = head[20..<24].reduce(0) { $0 << 8 | Int($1) }
        return (width, height)
    }

    /// Walks the chunks of `bytes` up to `IEND` (or the end of the data).
    /// - Throws: `ELImageError.malformedMedia` (frame nil) naming `file`, the chunk, its offset and
    ///   the length it claims, when a chunk runs past the end of the data. Data that does not start
    ///   with the signature, or ends between chunks, is left for libpng to report.
    static func check(_ bytes: [UInt8], file: String) throws {
        guard bytes.starts(with: signature) else { return }
        var offset = signature.count
        // A chunk: 4-byte big-endian length, 4-byte type, the data, a 4-byte CRC.
        while bytes.count - offset >= 8 {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = bytes[offset + 4..<offset + 8]
            let available = bytes.count - offset - 12
            guard length <= available else {
                throw ELImageError.malformedMedia(
                    file: file, frame: nil,
                    reason: "its PNG chunk '\(name(of: type))' at byte \(offset) claims \(length) bytes of data, but the file has \(max(0, available)) after its header; the file is damaged or cut short")
            }
            if type.elementsEqual("IEND".utf8) { return }
            offset += 12 + length
        }
    }

    /// A chunk type as text, non-letters as `\xHH`.
    private static func name(of type: ArraySlice<UInt8>) -> String {
        type.map { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
        }.joined()
    }
}
