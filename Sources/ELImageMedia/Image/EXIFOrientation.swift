import ELImage

/// The EXIF Orientation tag (0x0112) of a JPEG: how a camera says its picture is to be turned to
/// be seen upright (a phone held upright stores the picture sideways and writes 6).
///
/// Read from the first APP1 "Exif" segment before the image data: its TIFF header (either byte
/// order) and the first image file directory (IFD0). Every offset and length is checked against
/// the data; anything missing, cut short or out of range reads as no orientation.
enum EXIFOrientation {
    /// The tag's value, 1...8, or nil when the JPEG has none (or a damaged or invalid one).
    static func value(inJPEG bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var position = 2
        while position < bytes.count {
            guard bytes[position] == 0xFF else { return nil }  // not a marker: damaged
            // Any number of 0xFF fill bytes may come before the marker code.
            var codeIndex = position + 1
            while codeIndex < bytes.count, bytes[codeIndex] == 0xFF { codeIndex += 1 }
            guard codeIndex < bytes.count else { return nil }
            let code = bytes[codeIndex]
            switch code {
            case 0xDA, 0xD9: return nil              // start of scan, end of image: no Exif before
            case 0x01, 0xD0...0xD7:                   // markers without a length
                position = codeIndex + 1
                continue
            default: break
            }
            guard codeIndex + 2 < bytes.count else { return nil }
            let length = Int(bytes[codeIndex + 1]) << 8 | Int(bytes[codeIndex + 2])
            let start = codeIndex + 3, end = codeIndex + 1 + length
            guard length >= 2, end <= bytes.count else { return nil }
            if code == 0xE1, bytes[start..<end].starts(with: exifHeader) {
                return value(inTIFF: bytes[(start + exifHeader.count)..<end])
            }
            position = end
        }
        return nil
    }

    /// The orientation tag value in a TIFF structure (an Exif segment after its "Exif\0\0").
    static func value(inTIFF tiff: ArraySlice<UInt8>) -> Int? {
        let reader: TIFFReader
        switch (tiff.first, tiff.dropFirst().first) {
        case (0x49, 0x49): reader = TIFFReader(data: tiff, littleEndian: true)   // "II"
        case (0x4D, 0x4D): reader = TIFFReader(data: tiff, littleEndian: false)  // "MM"
        default: return nil
        }
        guard reader.uint16(at: 2) == 42, let directory = reader.uint32(at: 4),
              let entryCount = reader.uint16(at: directory),
              directory + 2 + 12 * entryCount <= tiff.count else { return nil }  // the directory is cut short
        for index in 0..<entryCount {
            let entry = directory + 2 + 12 * index
            guard let tag = reader.uint16(at: entry) else { return nil }
            guard tag == orientationTag else { continue }
            guard let type = reader.uint16(at: entry + 2), let count = reader.uint32(at: entry + 4), count >= 1 else {
                return nil
            }
            // A SHORT as the standard says; some writers use a LONG. Either fits in the entry.
            let value = switch type {
            case 3: reader.uint16(at: entry + 8)
            case 4: reader.uint32(at: entry + 8)
            default: Int?.none
            }
            return value.flatMap { (1...8).contains($0) ? $0 : nil }
        }
        return nil
    }

    /// The orientation that shows a picture tagged with `value` upright: 1 as stored, 2 mirrored,
    /// 3 turned 180°, 4 flipped top to bottom, 5 transposed, 6 turned 90° clockwise, 7 transversed,
    /// 8 turned 90° counter-clockwise. Nil outside 1...8.
    static func orientation(forTagValue value: Int) -> Orientation? {
        switch value {
        case 1: .up
        case 2: Orientation(mirrored: true)
        case 3: Orientation(rotation: .rotate180)
        case 4: Orientation(rotation: .rotate180, mirrored: true)
        case 5: Orientation(rotation: .clockwise90, mirrored: true)
        case 6: Orientation(rotation: .clockwise90)
        case 7: Orientation(rotation: .clockwise270, mirrored: true)
        case 8: Orientation(rotation: .clockwise270)
        default: nil
        }
    }

    private static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
    private static let orientationTag = 0x0112

    /// Reads TIFF integers at offsets from the TIFF header, in its byte order; nil past the end.
    private struct TIFFReader {
        let data: ArraySlice<UInt8>
        let littleEndian: Bool

        func uint16(at offset: Int) -> Int? {
            bytes(at: offset, count: 2).map { littleEndian ? $0[0] | $0[1] << 8 : $0[0] << 8 | $0[1] }
        }

        func uint32(at offset: Int) -> Int? {
            bytes(at: offset, count: 4).map {
                littleEndian ? $0[0] | $0[1] << 8 | $0[2] << 16 | $0[3] << 24 : $0[0] << 24 | $0[1] << 16 | $0[2] << 8 | $0[3]
            }
        }

        private func bytes(at offset: Int, count: Int) -> [Int]? {
            guard offset >= 0, offset <= data.count - count else { return nil }
            let start = data.startIndex + offset
            return data[start..<(start + count)].map { Int($0) }
        }
    }
}
