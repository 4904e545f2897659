import ELImage
import ELImageDetection
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// Reshape steered by the landmark detector: through the library (a detector branch beside the
/// filter) and `elimage run --filter reshape`, which adds the branch itself.
@Suite("Face reshape from landmarks", .closesContexts)
struct FaceReshapeToolTests {
    let elimage = BuiltProgram(name: "elimage")

    /// The fraction of pixels outside the face box (grown by `margin` of its size) that differ.
    static func changedOutside(_ a: RGBAImage, _ b: RGBAImage, face: CGRect, margin: Double) -> Double {
        let grown = face.insetBy(dx: -face.width * margin, dy: -face.height * margin)
        var changed = 0, outside = 0
        for y in 0..<a.height {
            for x in 0..<a.width where !grown.contains(CGPoint(x: Double(x) + 0.5, y: Double(y) + 0.5)) {
                outside += 1
                let offset = (y * a.width + x) * 4
                if a.pixels[offset..<offset + 3] != b.pixels[offset..<offset + 3] { changed += 1 }
            }
        }
        return Double(changed) / Double(max(1, outside))
    }

    @Test("The library: landmarks found on the portrait steer the reshape; the eyes grow, the picture beyond the face is untouched")
    func library() async throws {
        let portrait = try picture(Repository.path("Examples/Media/grace_hopper.jpg"))
        let found = try await detect([portrait], with: try FaceLandmarkDetector())
        let metadata = try #require(found.first)
        let face = try #require(metadata.faces.first)
        let landmarks = try #require(face.landmarks)
        let reshape = FaceReshape(slimming: 0.5, eyeEnlargement: 1)
        reshape.faces = metadata.facePoints
        let pipeline = try EmbeddedPipeline(context: TestContexts.make()) { $0 --> reshape }
        let result = try await pipeline.render(portrait)
        #expect(reshape.statistics.framesReshaped == 1)
        // The warps reach 1.75 eye distances from the face's middle line: about the face box's width.
        let outside = Self.changedOutside(result, portrait, face: face.pixelBounds, margin: 0.45)
        #expect(outside == 0, "\(outside * 100) % of the pixels beyond the face changed")
        // Around each eye the picture changed.
        for eye in [landmarks.leftEye, landmarks.rightEye] {
            var difference = 0
            for y in Int(eye.y) - 10..<Int(eye.y) + 10 {
                for x in Int(eye.x) - 10..<Int(eye.x) + 10 {
                    let offset = (y * portrait.width + x) * 4
                    difference += abs(Int(result.pixels[offset]) - Int(portrait.pixels[offset]))
                }
            }
            #expect(Double(difference) / 400 > 4, "mean change around the eye at \(eye): \(Double(difference) / 400)")
        }
    }

    @Test("elimage run --filter reshape: the face changes, the rest of the picture does not; without a face the picture is unchanged")
    func commandLine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let portrait = Repository.path("Examples/Media/astronaut.png")
        for (name, filter) in [("reshaped.png", "reshape:slimming=1,eyes=1"), ("plain.png", "reshape:slimming=0,eyes=0")] {
            let run = try await elimage.run(["run", portrait, "--filter", filter, "-o", folder.path(name)])
            #expect(run.status == 0, "\(run.errors)")
        }
        let reshaped = try picture(folder.path("reshaped.png")), plain = try picture(folder.path("plain.png"))
        #expect(plain.pixels == (try picture(portrait)).pixels, "strength 0 is a copy")
        // The marked face box (FaceDetectionTests): changed inside, untouched well outside.
        let face = CGRect(x: 172, y: 72, width: 104, height: 112)
        #expect(Self.changedOutside(reshaped, plain, face: face, margin: 0.6) == 0)
        #expect(Self.changedOutside(reshaped, plain, face: face, margin: 0) > 0.001)
        #expect(reshaped.pixels != plain.pixels)

        let bars = folder.path("bars.png")
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "smptehdbars=size=640x360", "-frames:v", "1", "-pix_fmt", "rgba", bars])
        let run = try await elimage.run(["run", bars, "--filter", "reshape:slimming=1,eyes=1", "-o", folder.path("bars-out.png")])
        #expect(run.status == 0, "\(run.errors)")
        #expect((try picture(folder.path("bars-out.png"))).pixels == (try picture(bars)).pixels)
    }

    /// Variance of the 4-neighbour Laplacian of the BT.709 luma over a rectangle: fine texture.
    static func laplacianVariance(_ image: RGBAImage, in rect: CGRect) -> Double {
        func luma(_ x: Int, _ y: Int) -> Double {
            let offset = (y * image.width + x) * 4
            return 0.2126 * Double(image.pixels[offset]) + 0.7152 * Double(image.pixels[offset + 1]) + 0.0722 * Double(image.pixels[offset + 2])
        }
        var values: [Double] = []
        for y in Int(rect.minY)..<Int(rect.maxY) {
            for x in Int(rect.minX)..<Int(rect.maxX) {
                values.append(luma(x - 1, y) + luma(x + 1, y) + luma(x, y - 1) + luma(x, y + 1) - 4 * luma(x, y))
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        return values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
    }

    @Test("elimage run --filter beauty --detect faces: the landmarks found steer beauty, so grace_hopper's folds and neck smooth further than without")
    func beautyWithLandmarks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let portrait = Repository.path("Examples/Media/grace_hopper.jpg")
        let steered = try await elimage.run(["run", portrait, "--filter", "beauty", "--detect", "faces", "--metadata", folder.path("faces.jsonl"),
                                             "-o", folder.path("steered.png")])
        #expect(steered.status == 0, "\(steered.errors)")
        let unfolded = try await elimage.run(["run", portrait, "--filter", "beauty:folds=0", "--detect", "faces", "--metadata", folder.path("faces2.jsonl"),
                                              "-o", folder.path("unfolded.png")])
        #expect(unfolded.status == 0, "\(unfolded.errors)")
        let plain = try await elimage.run(["run", portrait, "--filter", "beauty", "-o", folder.path("plain.png")])
        #expect(plain.status == 0, "\(plain.errors)")
        let input = try picture(portrait)
        let lines = try String(contentsOfFile: folder.path("faces.jsonl"), encoding: .utf8)
        #expect(lines.contains("\"landmarks\""), "\(lines)")
        // The nasolabial folds and the neck's creases (docs/beauty/portraits.json).
        let folds = [CGRect(x: 208, y: 246, width: 24, height: 44), CGRect(x: 300, y: 248, width: 24, height: 44),
                     CGRect(x: 250, y: 336, width: 55, height: 50)]
        func texture(_ path: String) throws -> [Double] {
            let image = try picture(path)
            return folds.map { Self.laplacianVariance(image, in: $0) / Self.laplacianVariance(input, in: $0) }
        }
        let steeredTexture = try texture(folder.path("steered.png")), plainTexture = try texture(folder.path("plain.png"))
        let unfoldedTexture = try texture(folder.path("unfolded.png"))
        print("beauty via the command line, fold texture after/before: steered \(steeredTexture), folds=0 \(unfoldedTexture), no faces \(plainTexture)")
        for index in folds.indices {
            #expect(steeredTexture[index] < 0.9 * plainTexture[index], "\(folds[index]): \(steeredTexture[index]) against \(plainTexture[index]) without faces")
            #expect(steeredTexture[index] < unfoldedTexture[index], "\(folds[index]): \(steeredTexture[index]) against \(unfoldedTexture[index]) at folds=0")
        }
    }
}
