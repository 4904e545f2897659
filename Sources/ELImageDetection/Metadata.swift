import ELImage
import Foundation

/// What a detector found in one analysed frame: its faces or codes, tagged with the frame's
/// number and timestamp. A frame with nothing found gives a `Metadata` with no detections.
public struct Metadata: Sendable {
    /// The detector that found it (`MetadataDetector.name`: "faces", "codes").
    public let detector: String
    /// The frame's number in its source's stream (`TextureFrame.sequenceNumber`; 0 for the
    /// source's first): frames lost before the detector are counted, so it names the source's frame.
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

    /// The motion among the detections (one at most: `MotionDetector` gives one a frame).
    public var motion: Motion? {
        detections.lazy.compactMap { if case let .motion(motion) = $0 { motion } else { nil } }.first
    }

    /// The person mask among the detections (one at most: `PersonSegmenter` gives one a frame).
    public var personMask: PersonMask? {
        detections.lazy.compactMap { if case let .person(mask) = $0 { mask } else { nil } }.first
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
    case motion(Motion)
    /// Where the people are (`PersonSegmenter`).
    case person(PersonMask)
}

extension CGRect {
    /// Intersection over union with `other` (0 when they do not overlap).
    public func intersectionOverUnion(_ other: CGRect) -> Double {
        let overlap = intersection(other)
        guard !overlap.isNull else { return 0 }
        let shared = Double(overlap.width * overlap.height)
        let union = Double(width * height + other.width * other.height) - shared
        return union > 0 ? shared / union : 0
    }

    /// This rectangle scaled by `sx` horizontally and `sy` vertically (e.g. normalized to pixels).
    public func scaled(_ sx: Double, _ sy: Double) -> CGRect {
        CGRect(x: minX * sx, y: minY * sy, width: width * sx, height: height * sy)
    }
}
