import ELImage
import ELImageDetection
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Faces through the whole detector branch (GPU shrink, luma readback, OpenCV's Haar cascade),
/// against face boxes marked by hand on the bundled portraits.
@Suite("Face detection", .closesContexts)
struct FaceDetectionTests {
    /// The faces marked by hand (brows to chin, cheek to cheek), in the pictures' pixels.
    static let astronautFace = CGRect(x: 172, y: 72, width: 104, height: 112)
    static let hopperFace = CGRect(x: 165, y: 145, width: 200, height: 190)

    @Test("Each portrait gives one face, overlapping the hand-marked face by IoU >= 0.5",
          arguments: [("astronaut.png", astronautFace), ("grace_hopper.jpg", hopperFace)])
    func portraits(name: String, marked: CGRect) async throws {
        let image = try picture(Repository.path("Examples/Media/" + name))
        let found = try await detect([image], with: try FaceDetector())
        let faces = try #require(found.first).faces
        #expect(faces.count == 1, "faces in \(name): \(faces.map { ($0.pixelBounds, $0.confidence) })")
        let face = try #require(faces.first)
        #expect(face.pixelBounds.intersectionOverUnion(marked) >= 0.5, "\(name): found \(face.pixelBounds), marked \(marked)")
        #expect(face.confidence > 0 && face.confidence <= 1)
        #expect(abs(face.bounds.minX * Double(image.width) - face.pixelBounds.minX) < 0.01)
        if let roll = face.rollDegrees { #expect(abs(roll) < 15, "\(name): roll \(roll)°") }
    }

    @Test("Pictures without a face give none: colour bars, a test pattern and frames of the bundled clip")
    func noFaces() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var images: [RGBAImage] = []
        for (index, source) in ["smptehdbars=size=1280x720", "testsrc2=size=1280x720"].enumerated() {
            images.append(try generatedPicture("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1",
                                                          "-pix_fmt", "rgba", folder.path("pattern\(index).png")],
                                               in: folder, name: "pattern\(index).png"))
        }
        for second in [0.5, 2, 3.5, 5] {
            let name = "bunny\(Int(second * 10)).png"
            images.append(try generatedPicture("ffmpeg", ["-v", "error", "-y", "-ss", "\(second)",
                                                          "-i", Repository.path("Examples/Media/bigbuckbunny.mp4"),
                                                          "-frames:v", "1", "-pix_fmt", "rgba", folder.path(name)],
                                               in: folder, name: name))
        }
        let found = try await detect(images, with: try FaceDetector())
        #expect(found.count == images.count)
        #expect(found.map(\.faces.count) == Array(repeating: 0, count: images.count))
    }

    @Test("A portrait panned across the frame keeps one tracking ID")
    func panningFaceKeepsItsID() async throws {
        let portrait = try picture(Repository.path("Examples/Media/astronaut.png"))
        // 16 frames of 960×540, the portrait moving 24 px to the right and 4 px down each frame.
        let frames = (0..<16).map { step in composed(portrait, at: 40 + step * 24, 10 + step * 4, canvas: 960, 540) }
        let found = try await detect(frames, with: try FaceDetector())
        #expect(found.count == frames.count)
        let faces = found.map(\.faces)
        #expect(faces.filter { $0.count == 1 }.count >= 14, "faces per frame: \(faces.map { $0.map(\.pixelBounds) })")
        #expect(Set(faces.flatMap { $0.map(\.trackingID) }).count == 1, "IDs: \(faces.map { $0.map(\.trackingID) })")
        // The box moves with the portrait.
        let xs = faces.compactMap { $0.first?.pixelBounds.minX }
        #expect((xs.last ?? 0) - (xs.first ?? 0) > 250, "box x per frame: \(xs)")
    }

    @Test("A missing cascade file is an error that names the file and the package to install")
    func missingCascade() throws {
        var settings = FaceDetector.Settings()
        settings.faceCascade = "/nonexistent/cascade.xml"
        #expect {
            _ = try FaceDetector(settings: settings)
        } throws: { error in
            "\(error)".contains("/nonexistent/cascade.xml") && "\(error)".contains("opencv-data")
        }
    }
}
