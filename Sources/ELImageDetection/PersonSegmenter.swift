import CDetectors
import ELImage
import Foundation

/// Finds people pixel by pixel: MediaPipe's selfie segmentation networks (Apache-2.0), run by
/// OpenCV's DNN module on the colour analysis picture, stretched to the network's size: the
/// landscape network (256×144) for pictures at least 1.5 times as wide as high, the general one
/// (256×256) for the others (square and portrait frames), as MediaPipe advises. Each analysis
/// gives one `.person(PersonMask)` detection, the probability of a person at each place of the
/// frame, for `BackgroundBlur`, `BackgroundReplace` and `PersonMaskFilter` (`follow(_:)`), which
/// refine it on the GPU for every frame.
///
/// ```swift
/// let blur = BackgroundBlur(strength: 0.7)
/// let people = try DetectorOutput(detector: try PersonSegmenter(),
///                                 settings: .init(maximumRate: 10)) { blur.follow($0) }
/// camera --> people
/// camera --> blur --> encoder
/// ```
///
/// One analysis costs about 7 ms (landscape) on one core of a 2-core machine (<doc:FacesCodesAndPeople>,
/// "People: background blur and replacement"), so a live source is analysed a few to some tens of times a
/// second while the mask is reused for the frames between.
///
/// The networks come from PyPI's mediapipe 0.10.14 wheel (as TFLite; `make deps` checks them and
/// converts them to ONNX with Models/convert_selfie_segmentation.py, checking the results'
/// SHA-256) and are installed into `/usr/local/share/elimage/models/selfie_segmentation`;
/// `make install` and the Debian package install them beside the program. `ModelLocation` says
/// where they are looked for (`ELIMAGE_MODELS` names another folder holding
/// `selfie_segmentation/`). Each is checked against the same hash again whenever it is loaded.
public final class PersonSegmenter: MetadataDetector {
    /// The networks' folder name in a models folder.
    public static let modelName = "selfie_segmentation"
    /// The folder `ModelLocation` finds for the networks (`$ELIMAGE_MODELS/selfie_segmentation`
    /// when it is set).
    public static var defaultModelFolder: String {
        ModelLocation().folder(for: modelName)
    }

    /// One of the two networks.
    public struct Network: Sendable, Equatable {
        /// Its file name in the model folder.
        public let file: String
        /// Its input and mask size.
        public let width: Int
        public let height: Int

        public static let landscape = Network(file: "selfie_segmentation_landscape.onnx", width: 256, height: 144)
        public static let general = Network(file: "selfie_segmentation.onnx", width: 256, height: 256)
    }

    /// The network for a `width`×`height` picture: landscape from an aspect of 1.5 up.
    public static func network(forPicture width: Int, _ height: Int) -> Network {
        Double(width) >= 1.5 * Double(height) ? .landscape : .general
    }

    public let name = "people"
    /// A 16:9 frame is analysed at the landscape network's own 256×144, other shapes at up to 256
    /// on their longer side (then stretched to the network's size, as MediaPipe does).
    public let preferredAnalysisSize = (width: 256, height: 256)
    /// Colour: the networks were trained on RGB.
    public var analysisFormat: PixelFormat { .rgba }
    private let landscape: DetectorHandle
    private let general: DetectorHandle

    /// Loads both networks from `modelFolder`, each checked against its pinned SHA-256
    /// (`PinnedModelHashes`) first.
    /// - Throws: `ELImageError.invalidInput` naming the file when one is missing, differs from its
    ///   pinned hash (both hashes given) or OpenCV cannot load it, with the command that installs it.
    public init(modelFolder: String = PersonSegmenter.defaultModelFolder) throws {
        func load(_ network: Network) throws -> DetectorHandle {
            let path = modelFolder + "/" + network.file
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw ELImageError.invalidInput(
                    what: "the person segmentation network \(path) is missing or unreadable",
                    hint: "MediaPipe's selfie segmentation (PyPI's mediapipe 0.10.14, converted to ONNX). "
                        + ModelLocation().missingHint(for: Self.modelName))
            }
            guard let pinned = PinnedModelHashes.personSegmentation[network.file] else {
                throw ELImageError.invalidInput(what: "no pinned SHA-256 for the person segmentation network \(network.file)",
                                                hint: "add it to PinnedModelHashes and the Makefile's SEGMENTATION_ONNX_CHECKS")
            }
            let file = try CheckedModelFile(path, kind: "the person segmentation network", pinned: pinned)
            do {
                return try withExtendedLifetime(file) {
                    try DetectorHandle(create: { el_person_segmenter_create(file.loadPath, Int32(network.width), Int32(network.height), $0, $1) },
                                       destroy: { el_person_segmenter_destroy($0) },
                                       hint: CheckedModelFile.reinstallHint)
                }
            } catch let ELImageError.invalidInput(what, hint) {
                throw ELImageError.invalidInput(what: CheckedModelFile.naming([file], in: what), hint: hint)
            }
        }
        landscape = try load(.landscape)
        general = try load(.general)
    }

    public func detect(in image: AnalysisImage) throws -> [Detection] {
        [.person(try mask(of: image))]
    }

    /// The mask of one analysis picture (`.rgba`), at the size of the network its shape picks.
    public func mask(of image: AnalysisImage) throws -> PersonMask {
        guard image.picture.format == .rgba else {
            throw ELImageError.invalidInput(what: "a \(image.picture.format) analysis picture", hint: "the segmentation network needs .rgba pictures")
        }
        let network = Self.network(forPicture: image.width, image.height)
        var values = [UInt8](repeating: 0, count: network.width * network.height)
        var message = [CChar](repeating: 0, count: 512)
        let result = try (network == .landscape ? landscape : general).use { handle in
            image.withRows { rows, bytesPerRow in
                el_person_segmenter_run(handle, rows, Int32(image.width), Int32(image.height), Int32(bytesPerRow),
                                        &values, &message, message.count)
            }
        }
        guard result == 0 else {
            throw ELImageError.invalidState(node: "PersonSegmenter", reason: "frame \(image.frame): \(String(messageBuffer: message))")
        }
        return try PersonMask(width: network.width, height: network.height, values: values, frame: image.frame, time: image.time)
    }
}

extension PersonMaskFollowing {
    /// Takes the mask of a segmenter's analysis (metadata without one changes nothing).
    public func follow(_ found: Metadata) {
        if let mask = found.personMask { personMask = mask }
    }
}

extension PersonMask {
    /// The box around the mask's person values (128 and more), in 0...1 of the frame; nil when
    /// there are none.
    public var bounds: CGRect? {
        var (left, top, right, bottom) = (width, height, -1, -1)
        for y in 0..<height {
            for x in 0..<width where values[y * width + x] >= 128 {
                left = min(left, x)
                right = max(right, x)
                top = min(top, y)
                bottom = max(bottom, y)
            }
        }
        guard right >= 0 else { return nil }
        return CGRect(x: Double(left) / Double(width), y: Double(top) / Double(height),
                      width: Double(right - left + 1) / Double(width), height: Double(bottom - top + 1) / Double(height))
    }
}
