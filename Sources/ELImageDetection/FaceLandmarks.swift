import ELImage
import Foundation

/// Five points of a face, in the frame's pixels (origin top left, y down), as a landmark detector
/// places them: the centres of the eyes, the tip of the nose and the corners of the mouth. "Left"
/// and "right" are the picture's: `leftEye` is the eye nearer the picture's left edge (the
/// person's right eye when they face the camera).
public struct FaceLandmarks: Sendable, Equatable {
    public var leftEye: CGPoint
    public var rightEye: CGPoint
    public var nose: CGPoint
    public var mouthLeft: CGPoint
    public var mouthRight: CGPoint

    public init(leftEye: CGPoint, rightEye: CGPoint, nose: CGPoint, mouthLeft: CGPoint, mouthRight: CGPoint) {
        self.leftEye = leftEye
        self.rightEye = rightEye
        self.nose = nose
        self.mouthLeft = mouthLeft
        self.mouthRight = mouthRight
    }

    /// The five points in the order above.
    public var points: [CGPoint] { [leftEye, rightEye, nose, mouthLeft, mouthRight] }

    /// The distance between the eyes' centres: the scale landmark errors are measured against.
    public var interocularDistance: Double {
        Double(hypot(rightEye.x - leftEye.x, rightEye.y - leftEye.y))
    }

    /// Head roll in degrees (positive: turned clockwise in the picture), from the line between the
    /// eyes.
    public var rollDegrees: Double {
        atan2(Double(rightEye.y - leftEye.y), Double(rightEye.x - leftEye.x)) * 180 / .pi
    }

    /// Head yaw in degrees (positive: turned towards the picture's right), from where the nose sits
    /// between the eyes across the line that joins them: a frontal face has it half way, a face
    /// turned by θ moves it by about half the eye distance × sin θ × 1.3 (the nose tip stands
    /// forward of the eyes by about 0.65 of their distance). Rough (±10°).
    public var yawDegrees: Double {
        let across = CGPoint(x: rightEye.x - leftEye.x, y: rightEye.y - leftEye.y)
        let length = Double(hypot(across.x, across.y))
        guard length > 0 else { return 0 }
        let middle = CGPoint(x: (leftEye.x + rightEye.x) / 2, y: (leftEye.y + rightEye.y) / 2)
        let offset = Double((nose.x - middle.x) * across.x + (nose.y - middle.y) * across.y) / length
        return asin(min(1, max(-1, offset / (0.65 * length)))) * 180 / .pi
    }

    /// The points moved and scaled as `transform` says (e.g. analysis pixels to frame pixels).
    public func applying(_ transform: (CGPoint) -> CGPoint) -> FaceLandmarks {
        FaceLandmarks(leftEye: transform(leftEye), rightEye: transform(rightEye), nose: transform(nose),
                      mouthLeft: transform(mouthLeft), mouthRight: transform(mouthRight))
    }
}

extension FaceLandmarks {
    /// The points in 0...1 of a `frameWidth`×`frameHeight` frame, as `FaceReshape` and `Beauty` take them.
    public func facePoints(frameWidth: Int, frameHeight: Int) -> FacePoints {
        func unit(_ point: CGPoint) -> SIMD2<Float> {
            SIMD2(Float(point.x / Double(max(1, frameWidth))), Float(point.y / Double(max(1, frameHeight))))
        }
        return FacePoints(leftEye: unit(leftEye), rightEye: unit(rightEye), nose: unit(nose),
                          mouthLeft: unit(mouthLeft), mouthRight: unit(mouthRight))
    }
}

extension Metadata {
    /// The landmarks of this frame's faces as `FaceReshape` and `Beauty` take them (faces without
    /// landmarks left out): `reshape.faces = metadata.facePoints` in a landmark detector's handler.
    public var facePoints: [FacePoints] {
        faces.compactMap { $0.landmarks?.facePoints(frameWidth: frameWidth, frameHeight: frameHeight) }
    }

    /// This frame's face boxes as `Beauty.faceRegions` takes them (0...1 of the frame).
    public var faceRegions: [FaceRegion] {
        faces.map { face in
            FaceRegion(x: Float(face.bounds.minX), y: Float(face.bounds.minY),
                       width: Float(face.bounds.width), height: Float(face.bounds.height))
        }
    }
}

extension Beauty {
    /// Takes the faces of a face detector's analysis: their boxes seed the skin colour
    /// (`faceRegions`), their landmarks, when the detector gives them, steer the folds, eyes and
    /// lips (`faces`). With none found, beauty falls back on its own portrait prior.
    public func follow(_ found: Metadata) {
        faceRegions = found.faceRegions
        faces = found.facePoints
    }
}
