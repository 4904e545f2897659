import CDetectors
import ELImage
@testable import ELImageDetection
import ELImageTestSupport
import Foundation
import Testing

/// The detector networks are checked against their pinned SHA-256 whenever they are loaded: a copy
/// of the installed folder with one byte of one network changed is refused, naming the file, both
/// hashes and the command that reinstalls it; the unchanged networks load; and the pinned hashes
/// are the ones the Makefile checks when it installs them.
@Suite("Model checks")
struct ModelCheckTests {
    /// A copy of the installed `files` of `source` in a temporary folder, with the byte in the
    /// middle of `changed` (when given) inverted.
    static func copy(_ files: [String], of source: String, changing changed: String? = nil) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for file in files {
            try FileManager.default.copyItem(atPath: source + "/" + file, toPath: folder.path(file))
        }
        if let changed {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: folder.path(changed)))
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: folder.path(changed)))
        }
        return folder
    }

    /// The `hash:file` entries of the Makefile variable `name` (its line and the lines it continues on).
    static func makefileChecks(_ name: String) throws -> [String: String] {
        let lines = try String(contentsOfFile: Repository.path("Makefile"), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix(name + " :=") }, "\(name) in the Makefile")
        var words: [Substring] = []
        for line in lines[start...] {
            words += line.split(whereSeparator: \.isWhitespace)
            guard line.hasSuffix("\\") else { break }
        }
        var checks: [String: String] = [:]
        for word in words.dropFirst(2) where word != "\\" {
            let parts = word.split(separator: ":")
            try #require(parts.count == 2 && parts[0].count == 64, "\(name) entry \(word)")
            checks[String(parts[1])] = String(parts[0])
        }
        return checks
    }

    @Test("The pinned hashes are the Makefile's MTCNN_CHECKS and SEGMENTATION_ONNX_CHECKS, for every network the detectors load")
    func pinnedHashesMatchTheMakefile() throws {
        #expect(try Self.makefileChecks("MTCNN_CHECKS") == PinnedModelHashes.faceLandmarks)
        #expect(try Self.makefileChecks("SEGMENTATION_ONNX_CHECKS") == PinnedModelHashes.personSegmentation)
        #expect(Set(FaceLandmarkDetector.networkFiles) == Set(PinnedModelHashes.faceLandmarks.keys))
        #expect(Set([PersonSegmenter.Network.general.file, PersonSegmenter.Network.landscape.file])
                == Set(PinnedModelHashes.personSegmentation.keys))
    }

    @Test("A face landmark network with one byte changed is refused: the file, both hashes, `make models`",
          arguments: FaceLandmarkDetector.networkFiles)
    func changedFaceNetwork(file: String) throws {
        let folder = try Self.copy(FaceLandmarkDetector.networkFiles, of: FaceLandmarkDetector.defaultModelFolder, changing: file)
        defer { folder.remove() }
        var settings = FaceLandmarkDetector.Settings()
        settings.modelFolder = folder.url.path
        let error = #expect(throws: ELImageError.self) { try FaceLandmarkDetector(settings: settings) }
        let message = error.map { "\($0)" } ?? ""
        let pinned = try #require(PinnedModelHashes.faceLandmarks[file])
        #expect(message.contains(folder.path(file)) && message.contains("not the pinned \(pinned)") && message.contains("make models"),
                "\(message)")
        // The hash found is the copy's, 64 hex digits, not the pinned one.
        let found = message.components(separatedBy: "has SHA-256 ").dropFirst().first?.prefix(64) ?? ""
        #expect(found.count == 64 && found.allSatisfy(\.isHexDigit) && String(found) != pinned, "\(message)")
    }

    @Test("A person segmentation network with one byte changed is refused: the file, both hashes, `make models`",
          arguments: [PersonSegmenter.Network.general.file, PersonSegmenter.Network.landscape.file])
    func changedSegmentationNetwork(file: String) throws {
        let files = [PersonSegmenter.Network.general.file, PersonSegmenter.Network.landscape.file]
        let folder = try Self.copy(files, of: PersonSegmenter.defaultModelFolder, changing: file)
        defer { folder.remove() }
        let error = #expect(throws: ELImageError.self) { try PersonSegmenter(modelFolder: folder.url.path) }
        let message = error.map { "\($0)" } ?? ""
        let pinned = try #require(PinnedModelHashes.personSegmentation[file])
        #expect(message.contains(folder.path(file)) && message.contains("not the pinned \(pinned)") && message.contains("make models"),
                "\(message)")
    }

    @Test("The installed networks, and unchanged copies of them elsewhere, pass their checks and load")
    func unchangedNetworksLoad() throws {
        _ = try FaceLandmarkDetector()
        _ = try PersonSegmenter()
        let faces = try Self.copy(FaceLandmarkDetector.networkFiles, of: FaceLandmarkDetector.defaultModelFolder)
        defer { faces.remove() }
        var settings = FaceLandmarkDetector.Settings()
        settings.modelFolder = faces.url.path
        _ = try FaceLandmarkDetector(settings: settings)
        let people = try Self.copy([PersonSegmenter.Network.general.file, PersonSegmenter.Network.landscape.file],
                                   of: PersonSegmenter.defaultModelFolder)
        defer { people.remove() }
        _ = try PersonSegmenter(modelFolder: people.url.path)
    }

    @Test("A checked file is handed to OpenCV as the open file itself, and its digest is SHA-256's")
    func checkedFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data("abc".utf8).write(to: URL(fileURLWithPath: folder.path("abc")))
        // SHA-256("abc"), FIPS 180-2's example.
        let file = try CheckedModelFile(folder.path("abc"), kind: "the test file",
                                        pinned: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(file.loadPath.hasPrefix("/proc/self/fd/"))
        // Replacing the file under its name after the check does not change what loadPath reads.
        try Data("xyz".utf8).write(to: URL(fileURLWithPath: folder.path("abc.new")))
        #expect(rename(folder.path("abc.new"), folder.path("abc")) == 0)
        #expect(try String(contentsOfFile: file.loadPath, encoding: .utf8) == "abc")
        #expect(throws: ELImageError.self) { try CheckedModelFile(folder.path("abc"), kind: "the test file", pinned: String(repeating: "0", count: 64)) }
    }
}

/// The face landmark networks' C code checks each output's shape before reading it: a network
/// with other output shapes (Tests/Fixtures/Models, made by the script beside it) is reported,
/// not read past. The Swift detector would refuse the file by its hash, so the C API is called.
@Suite("Network output shapes")
struct NetworkOutputShapeTests {
    @Test("A proposal network whose box regression is one cell instead of a map: an error naming the network and the shapes, not a read past the output")
    func wrongProposalShapes() throws {
        let folder = FaceLandmarkDetector.defaultModelFolder
        var message = [CChar](repeating: 0, count: 1024)
        let net = try #require(el_face_landmark_net_create(Repository.path("Tests/Fixtures/Models/pnet_wrong_output_shapes.onnx"),
                                                           folder + "/rnet.onnx", folder + "/onet.onnx", &message, message.count),
                               "\(String(messageBuffer: message))")
        defer { el_face_landmark_net_destroy(net) }
        // White: every cell of the probability map (the picture's first channels) is above the threshold.
        let (width, height) = (48, 48)
        let white = [UInt8](repeating: 255, count: width * height * 4)
        var faces = [ELFaceLandmarks](repeating: ELFaceLandmarks(), count: 8)
        let count = el_face_landmark_net_detect(net, white, Int32(width), Int32(height), Int32(width * 4), 20,
                                                &faces, Int32(faces.count), &message, message.count)
        let text = String(messageBuffer: message)
        #expect(count == -1, "\(text)")
        // Which output is reported depends on the order OpenCV lists them in: the map is taken from
        // the last one of four dimensions, and the other then has the wrong number of rows.
        #expect(text.contains("the proposal network (pnet.onnx) gave a ") && text.contains(" x ")
                && text.contains("make models"), "\(text)")
    }
}
