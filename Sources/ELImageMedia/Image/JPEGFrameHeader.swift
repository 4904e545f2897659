/// Finds the picture size a JPEG states in its frame header (`SOFn`), walking the marker
/// segments before it, so that the size is known before the file is read whole.
enum JPEGFrameHeader {
    /// The width and height of the first frame header in `head`; nil when `head` is not a JPEG or
    /// ends before one.
    static func statedSize(in head: [UInt8]) -> (width: Int, height: Int)? {
        guard head.starts(with: [0xFF, 0xD8]) else { return nil }
        var offset = 2
        while offset + 4 <= head.count {
            guard head[offset] == 0xFF else { return nil }
            let marker = head[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD8).contains(marker) { offset += 2; continue }  // no length
            let length = Int(head[offset + 2]) << 8 | Int(head[offset + 3])
            guard length >= 2 else { return nil }
            // SOF0...SOF15 but DHT (C4), JPG (C8) and DAC (CC): precision, height, width follow.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard offset + 9 <= head.count else { return nil }
                let height = Int(head[offset + 5]) << 8 | Int(head[offset + 6])
                let width = Int(head[offset + 7]) << 8 | Int(head[offset + 8])
                return (width, height)
            }
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan data or the end: no frame header
            offset += 2 + length
        }
        return nil
    }
}
