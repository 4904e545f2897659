import ELImage
import ELImageMedia

/// A raw-YUV fuzz input: a 7-byte parameter block that stands for what a user passes to
/// `RawYUVReader`, then the file's bytes.
///
///     byte 0     pixel format: an index into `PixelFormat.allCases` (modulo its count)
///     bytes 1-2  width, 16-bit little-endian (0 and values above the reader's limit are kept,
///                so that its checks are fuzzed too)
///     bytes 3-4  height, likewise
///     byte 5     frame rate numerator
///     byte 6     frame rate denominator
///
/// A shorter input has its missing bytes read as 0.
struct RawYUVFuzzInput {
    /// The length of the parameter block.
    static let parameterBytes = 7

    var format: PixelFormat
    var width: Int
    var height: Int
    var frameRate: Y4MHeader.Ratio
    /// The file's contents: what follows the parameter block.
    var file: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) {
        func byte(_ index: Int) -> Int { index < bytes.count ? Int(bytes[index]) : 0 }
        let formats = PixelFormat.allCases
        format = formats[byte(0) % formats.count]
        width = byte(1) | byte(2) << 8
        height = byte(3) | byte(4) << 8
        frameRate = Y4MHeader.Ratio(byte(5), byte(6))
        file = bytes.dropFirst(Self.parameterBytes)
    }
}
