import ELImage

/// One parser's fuzz entry point.
protocol FuzzEntry {
    /// Parses `bytes` and reads at most `FuzzLimits.framesPerInput` frames.
    /// - Returns: how many frames (or images) were read.
    /// - Throws: the parser's typed error (see `FuzzParser.consume(_:)`) when it rejects the input; `FuzzContractViolation`
    ///   when its output contradicts itself.
    static func consume(_ bytes: [UInt8]) throws -> Int
}

extension FuzzEntry {
    /// Checks that `frame` holds the bytes its format and size need.
    static func checkConsistent(_ frame: PixelBuffer, number: Int, parser: String) throws {
        let needed = frame.format.byteCount(width: frame.width, height: frame.height)
        try FuzzContractViolation.check(
            frame.width > 0 && frame.height > 0 && frame.data.count >= needed,
            "\(parser) frame \(number) is \(frame.width)x\(frame.height) \(frame.format) (\(needed) bytes) but holds \(frame.data.count) bytes")
    }
}
