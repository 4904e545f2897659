import CDetectors
import ELImage
import Foundation

/// Faces through OpenCV's Haar cascade `haarcascade_frontalface_alt2` (Debian's opencv-data), with
/// an IoU tracker for stable IDs and, from the eye cascade, roll and a rough yaw.
///
/// Why this detector: measured for the issue on a 2-core CPU, Haar alt2 found every face in three
/// test portraits with no false positive (24–49 ms at 320×180); OpenCV's LBP cascade is 3–5×
/// faster but misses small faces and gave a false positive in a crowd; dlib's HOG needs faces of
/// about 80 analysis pixels (4× the cost to go down to 40) and its landmark model is not for
/// commercial use. Frontal faces only (up to about ±30° of yaw and ±15° of roll).
public final class FaceDetector: MetadataDetector {
    /// Where Debian's opencv-data puts the cascades.
    public static let cascadeFolder = "/usr/share/opencv4/haarcascades"
    public static let defaultFaceCascade = cascadeFolder + "/haarcascade_frontalface_alt2.xml"
    public static let defaultEyeCascade = cascadeFolder + "/haarcascade_eye.xml"

    /// How the detector works.
    public struct Settings: Sendable {
        /// The face cascade (OpenCV XML).
        public var faceCascade = FaceDetector.defaultFaceCascade
        /// The eye cascade for roll and yaw; nil skips the eye search (a little faster, no pose).
        public var eyeCascade: String? = FaceDetector.defaultEyeCascade
        /// The smallest face looked for, in analysis pixels (the cascade's window is 20).
        public var minimumFaceSize = 20
        /// Frames are shrunk to fit inside this size (aspect kept) before detection.
        public var analysisSize = (width: 320, height: 320)

        public init() {}
    }

    public let name = "faces"
    public let settings: Settings
    public var preferredAnalysisSize: (width: Int, height: Int) { settings.analysisSize }
    /// The loaded cascades.
    private let cascade: DetectorHandle
    private let tracker = Locked(FaceTracker())

    /// Loads the cascades.
    /// - Throws: `ELImageError.invalidInput` when a cascade file is missing or unreadable.
    public init(settings: Settings = Settings()) throws {
        for path in [settings.faceCascade] + (settings.eyeCascade.map { [$0] } ?? [])
        where !FileManager.default.isReadableFile(atPath: path) {
            throw ELImageError.invalidInput(
                what: "the cascade file \(path) is missing or unreadable",
                hint: "install Debian's opencv-data (apt-get install opencv-data), or give the path of an OpenCV cascade XML")
        }
        self.settings = settings
        cascade = try DetectorHandle(create: { el_face_cascade_create(settings.faceCascade, settings.eyeCascade, $0, $1) },
                                     destroy: { el_face_cascade_destroy($0) },
                                     hint: "give the path of an OpenCV cascade XML (opencv-data ships them in \(FaceDetector.cascadeFolder))")
    }

    public func detect(in image: AnalysisImage) throws -> [Detection] {
        let found = try cascade.use { handle in
            try image.detections(by: "FaceDetector", empty: ELFaceResult()) { rows, width, height, stride, faces, capacity, message, size in
                el_face_cascade_detect(handle, rows, width, height, stride, Int32(settings.minimumFaceSize), faces, capacity, message, size)
            }
        }
        let boxes = found.map { face in
            CGRect(x: Double(face.x) / Double(image.width), y: Double(face.y) / Double(image.height),
                          width: Double(face.width) / Double(image.width), height: Double(face.height) / Double(image.height))
        }
        let ids = tracker.withLock { $0.assign(boxes) }
        return zip(found, zip(boxes, ids)).map { face, tracked in
            let (bounds, id) = tracked
            let pose = Self.pose(of: face)
            return .face(Face(trackingID: id, bounds: bounds,
                              pixelBounds: bounds.scaled(Double(image.frameWidth), Double(image.frameHeight)),
                              confidence: Double(face.neighbors) / Double(face.neighbors + 5),
                              rollDegrees: pose?.roll, yawDegrees: pose?.yaw))
        }
    }

    /// Roll from the line between the eyes; yaw from how far the eyes' midpoint sits from the
    /// box's centre line (a turned head shows its eyes off centre: a quarter of the box width
    /// off is taken as 30°). Analysis pixels are square, so the angles need no rescaling.
    static func pose(of face: ELFaceResult) -> (roll: Double, yaw: Double)? {
        guard face.hasEyes != 0, face.width > 0 else { return nil }
        let dx = Double(face.rightEyeX - face.leftEyeX), dy = Double(face.rightEyeY - face.leftEyeY)
        let roll = atan2(dy, dx) * 180 / .pi
        let middle = Double(face.leftEyeX + face.rightEyeX) / 2
        let offset = (middle - Double(face.x + face.width / 2)) / Double(face.width)
        let yaw = asin(min(1, max(-1, offset * 2))) * 180 / .pi
        return (roll, yaw)
    }
}
