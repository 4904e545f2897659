import Foundation

/// A face: where it is, how sure the detector is, the track it belongs to, its head pose when
/// both eyes were found, and its five landmarks when the detector places them
/// (`FaceLandmarkDetector`).
public struct Face: Sendable {
    /// Stable across frames while the face stays in view (IoU tracking between detections).
    public let trackingID: Int
    /// The face's box, 0...1 across the frame (origin top left, y down), as AVMetadataFaceObject's.
    public let bounds: CGRect
    /// The box in the frame's pixels.
    public let pixelBounds: CGRect
    /// 0...1. The Haar detector: how many overlapping detection windows agreed, `n / (n + 5)`
    /// (cascades give no probability; 3 windows, the least accepted, give 0.375; 20 give 0.8). The
    /// landmark detector: its network's face probability.
    public let confidence: Double
    /// Head roll in degrees (positive: turned clockwise in the picture), from the line between
    /// the eyes; nil when the eyes were not both found.
    public let rollDegrees: Double?
    /// Head yaw in degrees (positive: turned towards the picture's right), estimated from where
    /// the eyes' midpoint sits in the box; rough (±15°); nil when the eyes were not both found.
    public let yawDegrees: Double?
    /// The eyes, the nose and the mouth corners in the frame's pixels; nil from a detector that
    /// does not place them (the Haar cascades).
    public let landmarks: FaceLandmarks?

    public init(trackingID: Int, bounds: CGRect, pixelBounds: CGRect, confidence: Double,
                rollDegrees: Double?, yawDegrees: Double?, landmarks: FaceLandmarks? = nil) {
        self.trackingID = trackingID
        self.bounds = bounds
        self.pixelBounds = pixelBounds
        self.confidence = confidence
        self.rollDegrees = rollDegrees
        self.yawDegrees = yawDegrees
        self.landmarks = landmarks
    }
}

extension Face: CustomStringConvertible {
    /// E.g. "face 3 at (120, 48) 64×72 px, confidence 0.80": the box in the frame's pixels.
    public var description: String {
        let box = pixelBounds.standardized
        func whole(_ value: CGFloat) -> Int { Int(value.rounded()) }
        var text = "face \(trackingID) at (\(whole(box.minX)), \(whole(box.minY))) \(whole(box.width))×\(whole(box.height)) px"
            + ", confidence " + String(format: "%.2f", confidence)
        if let rollDegrees, let yawDegrees { text += String(format: ", roll %.0f°, yaw %.0f°", rollDegrees, yawDegrees) }
        return text
    }
}
