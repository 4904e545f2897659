import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run --detect`: JSON Lines on standard output or in a file, the overlay in the output.
@Suite("elimage run --detect")
struct DetectionToolTests {
    let elimage = BuiltProgram(name: "elimage")

    /// Each line of `text` parsed as a JSON object; fails the test for a line that is not one.
    func jsonObjects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test("Codes go to standard output as JSON Lines, nothing else does")
    func codesOnStandardOutput() async throws {
        let run = try await elimage.run(["run", Repository.path("Examples/Media/qrcode.png"), "--detect", "codes"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasSuffix("\n"))
        let objects = try jsonObjects(run.output)
        #expect(objects.count == 1)
        let code = try #require(objects.first)
        #expect(code["type"] as? String == "qr")
        #expect(code["text"] as? String == "Thalassiodracon")
        #expect(code["frame"] as? Int == 0)
        #expect((code["time"] as? NSNumber)?.doubleValue == 0)
        let points = try #require(code["points"] as? [[Double]])
        #expect(points.count == 4 && points.allSatisfy { $0.count == 2 && (0...200).contains($0[0]) && (0...200).contains($0[1]) })
    }

    @Test("Faces from a clip: one line per frame with its number, time and a steady ID; --overlay draws the box into the output")
    func facesIntoFileWithOverlay() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let metadata = folder.path("faces.jsonl"), output = folder.path("out.y4m")
        let run = try await elimage.run(["run", Repository.path("Examples/Media/astronaut.png"), "--frames", "5", "--fps", "25",
                                         "--detect", "faces,codes", "--metadata", metadata, "--overlay", "-o", output])
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.output.contains("{"))
        let text = try String(contentsOfFile: metadata, encoding: .utf8)
        let faces = try jsonObjects(text)
        #expect(faces.count == 5)
        #expect(faces.compactMap { $0["frame"] as? Int } == [0, 1, 2, 3, 4])
        #expect(faces.compactMap { ($0["time"] as? NSNumber)?.doubleValue } == [0, 0.04, 0.08, 0.12, 0.16])
        #expect(Set(faces.compactMap { $0["id"] as? Int }).count == 1)
        #expect(faces.allSatisfy { $0["type"] as? String == "face" && ($0["confidence"] as? Double ?? 0) > 0 })
        let bounds = try #require(faces.first?["bounds"] as? [Double])
        #expect(bounds.count == 4)
        #expect(!FileManager.default.fileExists(atPath: metadata + StagedOutputFile.suffix))
        // The box's top edge is green in the output's first frame.
        let frame = folder.path("frame.png")
        try runTool("ffmpeg", ["-v", "error", "-y", "-i", output, "-frames:v", "1", frame])
        let image = try PNGFile.read(frame)
        // The greenest pixel within two rows of the edge (the line is drawn at the rounded edge).
        let column = Int(bounds[0] + bounds[2] / 2), row = Int(bounds[1].rounded())
        func greenness(_ pixel: SIMD4<UInt8>) -> Int { Int(pixel.y) - Int(pixel.x) }
        let candidates: [SIMD4<UInt8>] = (row - 2...row + 2).map { image[column, $0] }
        let pixel = try #require(candidates.max { greenness($0) < greenness($1) })
        #expect(pixel.y > 180 && pixel.x < 110 && pixel.z < 110, "\(pixel)")
    }

    @Test("Faces found by --detect faces seed beauty's skin model: a face away from the centre is masked as skin")
    func facesSeedBeauty() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The astronaut in the lower right of a 1280x720 frame, where the portrait prior (upper
        // middle) does not look: without faces, beauty learns the light background as skin.
        let padded = folder.path("padded.png"), mask = folder.path("mask.png")
        try runTool("ffmpeg", ["-v", "error", "-y", "-i", Repository.path("Examples/Media/astronaut.png"),
                               "-vf", "pad=1280:720:760:200:color=0x406080", padded])
        let run = try await elimage.run(["run", padded, "--detect", "faces", "--metadata", folder.path("faces.jsonl"),
                                         "--filter", "beauty:mask=1", "-o", mask])
        #expect(run.status == 0, "\(run.errors)")
        let image = try PNGFile.read(mask)
        // Patches of the portrait (docs/beauty/portraits.json) moved by the padding's offset.
        func level(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> Double {
            var sum = 0.0
            for row in 0..<height { for column in 0..<width { sum += Double(image[760 + x + column, 200 + y + row].x) } }
            return sum / Double(width * height * 255)
        }
        #expect(level(186, 109, 17, 17) > 0.6, "left cheek")
        #expect(level(243, 111, 20, 17) > 0.6, "right cheek")
        #expect(level(200, 98, 6, 5) < 0.2, "left pupil")
        #expect(level(320, 20, 40, 40) < 0.2, "backdrop (all skin without the faces)")
        #expect(level(60, 330, 50, 50) < 0.2, "suit")
    }

    @Test("Wrong detection options are refused with what to write")
    func usageErrors() async throws {
        let image = Repository.path("Examples/Media/qrcode.png")
        let unknown = try await elimage.run(["run", image, "--detect", "cats"])
        #expect(unknown.status != 0 && unknown.errors.contains("--detect cats"))
        let overlayAlone = try await elimage.run(["run", image, "--overlay"])
        #expect(overlayAlone.status != 0 && overlayAlone.errors.contains("--detect"))
    }
}
