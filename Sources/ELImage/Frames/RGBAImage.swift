/// RGBA pixels on the CPU, first row first, with the time of the frame they came from.
public struct RGBAImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Tightly packed: `width * 4`.
    public var bytesPerRow: Int { width * 4 }
    public var pixels: [UInt8]
    public var timestamp: MediaTime

    public init(width: Int, height: Int, pixels: [UInt8], timestamp: MediaTime = .zero) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.timestamp = timestamp
    }

    /// The pixel at column `x`, row `y` (row 0 is the top of the picture).
    public subscript(x: Int, y: Int) -> SIMD4<UInt8> {
        let offset = y * bytesPerRow + x * 4
        return SIMD4(pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }
}
