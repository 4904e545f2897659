import ELImage
import Foundation

/// The picture a detector looks at: a frame shrunk on the GPU to the detector's analysis size and
/// read back in the detector's `analysisFormat` (8-bit luma, `.gray8`, or `.rgba`; top row first),
/// with the frame it came from.
public struct AnalysisImage: Sendable {
    /// The picture; its timestamp is the frame's.
    public let picture: PixelBuffer
    /// The frame's number in its source's stream (`TextureFrame.sequenceNumber`): frames lost
    /// before the detector (late, replaced, skipped by a camera's driver) are counted.
    public let frame: Int
    /// The size of the frame in the graph (what `Metadata`'s pixel coordinates refer to).
    public let frameWidth: Int
    public let frameHeight: Int

    /// `picture` is `.gray8` or `.rgba` (made by `DetectorOutput`).
    package init(picture: PixelBuffer, frame: Int, frameWidth: Int, frameHeight: Int) {
        self.picture = picture
        self.frame = frame
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
    }

    public var width: Int { picture.width }
    public var height: Int { picture.height }
    public var time: MediaTime { picture.timestamp }

    /// Calls `body` with the first row's address and the distance between rows.
    func withRows<Result>(_ body: (UnsafePointer<UInt8>?, Int) throws -> Result) rethrows -> Result {
        let plane = picture.planes[0]
        return try picture.data.withUnsafeBufferPointer { bytes in
            try body(bytes.baseAddress.map { $0 + plane.offset }, plane.bytesPerRow)
        }
    }

    /// Runs a C detector on this image's rows: `call` gets the first row, the width, height and
    /// row distance, a buffer for up to `capacity` results and one for a message, and returns how
    /// many it found, or -1 with a message (thrown naming `node` and this frame).
    func detections<Result>(by node: String, empty: Result, capacity: Int = 64,
                            _ call: (UnsafePointer<UInt8>?, Int32, Int32, Int32, UnsafeMutablePointer<Result>, Int32,
                                     UnsafeMutablePointer<CChar>, Int) -> Int32) throws -> [Result] {
        var results = [Result](repeating: empty, count: capacity)
        var message = [CChar](repeating: 0, count: 512)
        let count = withRows { rows, bytesPerRow in
            call(rows, Int32(width), Int32(height), Int32(bytesPerRow), &results, Int32(capacity), &message, message.count)
        }
        guard count >= 0 else {
            throw ELImageError.invalidState(node: node, reason: "frame \(frame): \(String(messageBuffer: message))")
        }
        return Array(results.prefix(Int(count)))
    }

    /// Wraps what `detector` found in this image as the frame's `Metadata`.
    public func metadata(_ detections: [Detection], detector: String) -> Metadata {
        Metadata(detector: detector, frame: frame, time: time, frameWidth: frameWidth, frameHeight: frameHeight,
                 detections: detections)
    }

    /// A point of this image (in its pixels) in the frame's normalized coordinates and pixels.
    func locate(x: Double, y: Double) -> (normalized: CGPoint, pixels: CGPoint) {
        let normalized = CGPoint(x: x / Double(width), y: y / Double(height))
        return (normalized, CGPoint(x: normalized.x * Double(frameWidth), y: normalized.y * Double(frameHeight)))
    }
}
