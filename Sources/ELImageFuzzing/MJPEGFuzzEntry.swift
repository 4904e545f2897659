import ELImage
import ELImageCamera

/// Fuzzes the camera's `MJPEGDecoder`: the input's first 4 bytes are the size the camera
/// negotiated (width, then height, 16-bit little-endian each, plus 1: never 0), the rest is
/// one MJPEG frame as the driver hands it over.
enum MJPEGFuzzEntry: FuzzEntry {
    /// The length of the negotiated-size block.
    static let parameterBytes = 4

    static func consume(_ bytes: [UInt8]) throws -> Int {
        func byte(_ index: Int) -> Int { index < bytes.count ? Int(bytes[index]) : 0 }
        let negotiated = (width: (byte(0) | byte(1) << 8) + 1, height: (byte(2) | byte(3) << 8) + 1)
        let frame = Array(bytes.dropFirst(parameterBytes))
        let decoder = try MJPEGDecoder()
        let buffer = try frame.withUnsafeBytes { jpeg in
            try decoder.decode(jpeg, expectedSize: negotiated, timestamp: .zero, colorSpace: .jpeg,
                               source: (path: "/dev/video-fuzz", frame: 0))
        }
        try FuzzContractViolation.check(
            buffer.width == negotiated.width && buffer.height == negotiated.height
                && buffer.data.count >= buffer.format.byteCount(width: buffer.width, height: buffer.height),
            "MJPEGDecoder returned a \(buffer.width)x\(buffer.height) \(buffer.format) frame of \(buffer.data.count) bytes "
                + "(negotiated \(negotiated.width)x\(negotiated.height))")
        return 1
    }
}
