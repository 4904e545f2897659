import ELImage
import ELImageDetection
import ELImageTestSupport
import Foundation
import Testing

/// Where the networks are looked for: $ELIMAGE_MODELS alone when set; else beside the program,
/// /usr/local/share/elimage/models, /usr/share/elimage/models; the first holding the network wins.
@Suite("Model location")
struct ModelLocationTests {
    @Test("ELIMAGE_MODELS, when set, is the only folder searched, whether or not it holds the network")
    func environment() {
        let location = ModelLocation(environment: ["ELIMAGE_MODELS": "/nonexistent/models"], executablePath: "/opt/x/bin/elimage")
        #expect(location.searched == ["/nonexistent/models"])
        #expect(location.folder(for: "mtcnn") == "/nonexistent/models/mtcnn")
        #expect(location.missingHint(for: "mtcnn").contains("/nonexistent/models/mtcnn (from $ELIMAGE_MODELS)"))
    }

    @Test("Without it: beside the program, then /usr/local, then /usr, without repeats")
    func order() {
        let location = ModelLocation(environment: [:], executablePath: "/opt/elimage/bin/elimage")
        #expect(location.searched == ["/opt/elimage/share/elimage/models", "/usr/local/share/elimage/models", "/usr/share/elimage/models"])
        let local = ModelLocation(environment: [:], executablePath: "/usr/local/bin/elimage")
        #expect(local.searched == ["/usr/local/share/elimage/models", "/usr/share/elimage/models"])
        let unknown = ModelLocation(environment: ["ELIMAGE_MODELS": ""], executablePath: nil)
        #expect(unknown.searched == ["/usr/local/share/elimage/models", "/usr/share/elimage/models"])
    }

    @Test("An install beside the program is found first; a network it lacks is looked for further on")
    func beside() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path("bin"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path("share/elimage/models/mtcnn"), withIntermediateDirectories: true)
        let location = ModelLocation(environment: [:], executablePath: folder.path("bin/elimage"))
        #expect(location.folder(for: "mtcnn") == folder.path("share/elimage/models/mtcnn"))
        // Not beside the program: the next folders, and /usr/local's when none holds it.
        let other = location.folder(for: "no_such_network")
        #expect(other == "/usr/local/share/elimage/models/no_such_network")
    }

    @Test("A missing network's error names every folder searched")
    func missingHint() {
        var settings = FaceLandmarkDetector.Settings()
        settings.modelFolder = "/nonexistent/mtcnn"
        let error = #expect(throws: ELImageError.self) { try FaceLandmarkDetector(settings: settings) }
        let message = error.map { "\($0)" } ?? ""
        for folder in ModelLocation().searched {
            #expect(message.contains(folder + "/mtcnn"), "\(message)")
        }
    }
}
