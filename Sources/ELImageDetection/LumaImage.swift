import ELImage

/// The picture a detector looks at: a frame shrunk on the GPU to the detector's analysis size and
/// read back as 8-bit luma (rows `bytesPerRow` apart, top row first).
public struct LumaImage: Sendable {
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    public let pixels: [UInt8]
    /// The frame's number among those the detector node received, and its timestamp.
    public let frame: Int
    public let time: MediaTime
    /// The size of the frame in the graph (what `Metadata`'s pixel coordinates refer to).
    public let frameWidth: Int
    public let frameHeight: Int

    public init(width: Int, height: Int, bytesPerRow: Int, pixels: [UInt8], frame: Int, time: MediaTime,
                frameWidth: Int, frameHeight: Int) throws {
        guard width > 0, height > 0, bytesPerRow >= width, pixels.count >= bytesPerRow * (height - 1) + width else {
            throw ELImageError.invalidInput(
                what: "a \(width)x\(height) luma image with \(bytesPerRow)-byte rows needs more than the \(pixels.count) bytes given",
                hint: "pass at least bytesPerRow * (height - 1) + width bytes")
        }
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.pixels = pixels
        self.frame = frame
        self.time = time
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
    }

    /// The luma plane of a `.gray8` buffer read back from the GPU.
    init(_ buffer: PixelBuffer, frame: Int, frameWidth: Int, frameHeight: Int) throws {
        let plane = buffer.planes[0]
        try self.init(width: buffer.width, height: buffer.height, bytesPerRow: plane.bytesPerRow,
                      pixels: plane.offset == 0 ? buffer.data : Array(buffer.data[plane.offset...]),
                      frame: frame, time: buffer.timestamp, frameWidth: frameWidth, frameHeight: frameHeight)
    }

    /// Wraps what `detector` found in this image as the frame's `Metadata`.
    public func metadata(_ detections: [Detection], detector: String) -> Metadata {
        Metadata(detector: detector, frame: frame, time: time, frameWidth: frameWidth, frameHeight: frameHeight, detections: detections)
    }

    /// A point of this image (in its pixels) in the frame's normalized coordinates and pixels.
    func locate(x: Double, y: Double) -> (normalized: DetectionPoint, pixels: DetectionPoint) {
        let normalized = DetectionPoint(x: x / Double(width), y: y / Double(height))
        return (normalized, DetectionPoint(x: normalized.x * Double(frameWidth), y: normalized.y * Double(frameHeight)))
    }
}
