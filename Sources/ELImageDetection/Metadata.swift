import ELImage

/// What a detector found in one analysed frame: its faces or codes, tagged with the frame's
/// number and timestamp. A frame with nothing found gives a `Metadata` with no detections.
public struct Metadata: Sendable {
    /// The detector that found it (`MetadataDetector.name`: "faces", "codes").
    public let detector: String
    /// The frame's number among the frames the detector node received (0 for the first).
    public let frame: Int
    /// The frame's presentation time, exactly as it came through the graph.
    public let time: MediaTime
    /// The size of the frame in the graph, in pixels (what pixel coordinates refer to).
    public let frameWidth: Int
    public let frameHeight: Int
    public let detections: [Detection]

    public init(detector: String, frame: Int, time: MediaTime, frameWidth: Int, frameHeight: Int,
                detections: [Detection]) {
        self.detector = detector
        self.frame = frame
        self.time = time
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        self.detections = detections
    }

    /// The faces among the detections.
    public var faces: [Face] {
        detections.compactMap { if case let .face(face) = $0 { face } else { nil } }
    }

    /// The codes among the detections.
    public var codes: [Code] {
        detections.compactMap { if case let .code(code) = $0 { code } else { nil } }
    }
}

/// One thing a detector found.
public enum Detection: Sendable {
    case face(Face)
    case code(Code)
}

/// A rectangle with its origin at the top left. In normalized coordinates 0...1 spans the frame.
public struct DetectionRect: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var area: Double { max(0, width) * max(0, height) }

    /// Intersection over union with `other` (0 when they do not overlap).
    public func intersectionOverUnion(_ other: DetectionRect) -> Double {
        let left = max(x, other.x), right = min(x + width, other.x + other.width)
        let top = max(y, other.y), bottom = min(y + height, other.y + other.height)
        let intersection = max(0, right - left) * max(0, bottom - top)
        let union = area + other.area - intersection
        return union > 0 ? intersection / union : 0
    }

    /// This rectangle scaled by `sx` horizontally and `sy` vertically (e.g. normalized to pixels).
    public func scaled(_ sx: Double, _ sy: Double) -> DetectionRect {
        DetectionRect(x: x * sx, y: y * sy, width: width * sx, height: height * sy)
    }
}

/// A point with its origin at the top left.
public struct DetectionPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
