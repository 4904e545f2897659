import ELImage
import ELImageMedia

/// Fuzzes `JPEGFile` (its Exif orientation reader, then TurboJPEG): the input is a whole JPEG,
/// decoded to RGBA and then to its own Y'CbCr planes.
enum JPEGFuzzEntry: FuzzEntry {
    static func consume(_ bytes: [UInt8]) throws -> Int {
        // The Exif parser walks the same bytes first: it must never trap, whatever they hold.
        _ = JPEGFile.orientation(of: bytes)
        let image = try JPEGFile.decode(bytes, name: "fuzz.jpg")
        try FuzzContractViolation.check(
            image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height * 4,
            "JPEGFile.decode returned a \(image.width)x\(image.height) image with \(image.pixels.count) bytes")
        let planes = try JPEGFile.decodeYUV(bytes, name: "fuzz.jpg")
        try checkConsistent(planes, number: 0, parser: "JPEGFile.decodeYUV")
        try FuzzContractViolation.check(
            planes.width == image.width && planes.height == image.height,
            "JPEGFile.decodeYUV gives \(planes.width)x\(planes.height), JPEGFile.decode \(image.width)x\(image.height)")
        return 2
    }
}
