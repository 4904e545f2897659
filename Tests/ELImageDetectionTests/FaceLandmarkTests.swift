import ELImage
import ELImageDetection
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Faces with landmarks through the whole detector branch (GPU shrink, RGBA readback, MTCNN's
/// three networks in OpenCV's DNN module), against points marked by hand on the bundled portraits
/// (at 4–8× zoom: the eye's centre between its corners, the nose's tip, the mouth's corners) and
/// on generated scenes: the portraits' heads scaled, rolled and pasted on other pictures, where the
/// marked points move by the same transform.
@Suite("Faces with landmarks", .closesContexts)
struct FaceLandmarkTests {
    /// Hand-marked points in the pictures' pixels: left eye, right eye, nose, mouth left, mouth right.
    static let astronautPoints = [CGPoint(x: 202.5, y: 101.75), CGPoint(x: 247.25, y: 102.5), CGPoint(x: 223.75, y: 126.25),
                                  CGPoint(x: 203.75, y: 141.25), CGPoint(x: 244.5, y: 142)]
    static let hopperPoints = [CGPoint(x: 221.5, y: 190), CGPoint(x: 305.5, y: 186), CGPoint(x: 266, y: 239),
                               CGPoint(x: 231, y: 276), CGPoint(x: 304, y: 274)]

    /// Each point's distance from its mark, as a fraction of the marked eyes' distance.
    static func errors(_ found: FaceLandmarks, _ marked: [CGPoint]) -> [Double] {
        let scale = Double(hypot(marked[1].x - marked[0].x, marked[1].y - marked[0].y))
        return zip(found.points, marked).map { Double(hypot($0.x - $1.x, $0.y - $1.y)) / scale }
    }

    static func percent(_ values: [Double]) -> String {
        values.map { String(format: "%.1f %%", $0 * 100) }.joined(separator: ", ")
    }

    @Test("The portraits: one face each, its five points on average within 5 % of the eye distance of the marks, none beyond 7.5 %",
          arguments: [("astronaut.png", astronautPoints), ("grace_hopper.jpg", hopperPoints)])
    func portraits(name: String, marked: [CGPoint]) async throws {
        let image = try picture(Repository.path("Examples/Media/" + name))
        let found = try await detect([image], with: try FaceLandmarkDetector())
        let faces = try #require(found.first).faces
        #expect(faces.count == 1, "faces in \(name): \(faces.map(\.pixelBounds))")
        let face = try #require(faces.first)
        let landmarks = try #require(face.landmarks)
        let errors = Self.errors(landmarks, marked)
        print("\(name): landmark errors \(Self.percent(errors)) of the eye distance (mean \(Self.percent([errors.reduce(0, +) / 5])))"
              + "; roll \(String(format: "%.1f", face.rollDegrees ?? .nan))°, yaw \(String(format: "%.1f", face.yawDegrees ?? .nan))°")
        #expect(errors.reduce(0, +) / 5 <= 0.05, "\(name): \(Self.percent(errors))")
        #expect(errors.allSatisfy { $0 <= 0.075 }, "\(name): \(Self.percent(errors))")
        // Every point inside the box, the box around the marks, a frontal face's pose.
        #expect(landmarks.points.allSatisfy { face.pixelBounds.insetBy(dx: -2, dy: -2).contains($0) })
        #expect(face.confidence > 0.9 && face.confidence <= 1)
        let roll = try #require(face.rollDegrees), yaw = try #require(face.yawDegrees)
        #expect(abs(roll) < 6 && abs(yaw) < 15)
        // The JSON line carries the points in the frame's pixels.
        let metadata = try #require(found.first)
        let line = try #require(metadata.jsonLines.first)
        #expect(line.contains("\"landmarks\":[[") && line.contains(String(format: "%.1f", landmarks.leftEye.x).replacingOccurrences(of: ".0", with: "")))
    }

    /// A generated scene: `head` (a part of a portrait) scaled, rolled by `degrees` (clockwise in
    /// the picture) around its centre, and centred at `centre` on `background`, sampled bilinearly;
    /// `move` takes a point of the portrait to the scene.
    struct Scene {
        var image: RGBAImage
        var move: (CGPoint) -> CGPoint
    }

    static func scene(_ portrait: RGBAImage, head: CGRect, scale: Double, degrees: Double, centre: CGPoint,
                      on background: RGBAImage) -> Scene {
        let angle = degrees * .pi / 180, c = cos(angle), s = sin(angle)
        let middle = CGPoint(x: head.midX, y: head.midY)
        var pixels = background.pixels
        for y in 0..<background.height {
            for x in 0..<background.width {
                // The scene pixel's centre back in the portrait (the inverse transform).
                let dx = (Double(x) + 0.5 - centre.x) / scale, dy = (Double(y) + 0.5 - centre.y) / scale
                let u = middle.x + c * dx + s * dy, v = middle.y - s * dx + c * dy
                guard head.contains(CGPoint(x: u, y: v)) else { continue }
                let fx = u - 0.5, fy = v - 0.5
                let x0 = max(0, min(portrait.width - 2, Int(fx.rounded(.down))))
                let y0 = max(0, min(portrait.height - 2, Int(fy.rounded(.down))))
                let ax = min(1, max(0, fx - Double(x0))), ay = min(1, max(0, fy - Double(y0)))
                for channel in 0..<3 {
                    func at(_ px: Int, _ py: Int) -> Double { Double(portrait.pixels[(py * portrait.width + px) * 4 + channel]) }
                    let top = at(x0, y0) * (1 - ax) + at(x0 + 1, y0) * ax
                    let bottom = at(x0, y0 + 1) * (1 - ax) + at(x0 + 1, y0 + 1) * ax
                    pixels[(y * background.width + x) * 4 + channel] = UInt8((top * (1 - ay) + bottom * ay).rounded())
                }
            }
        }
        let move: (CGPoint) -> CGPoint = { point in
            let dx = (point.x - middle.x) * scale, dy = (point.y - middle.y) * scale
            return CGPoint(x: centre.x + c * dx - s * dy, y: centre.y + s * dx + c * dy)
        }
        return Scene(image: RGBAImage(width: background.width, height: background.height, pixels: pixels), move: move)
    }

    /// 640×360 backgrounds: a test pattern, a frame of the bundled clip, and noise over a gradient.
    static func backgrounds(in folder: TemporaryFolder) throws -> [RGBAImage] {
        let pattern = try generatedPicture("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360", "-frames:v", "1",
                                                      "-pix_fmt", "rgba", folder.path("pattern.png")], in: folder, name: "pattern.png")
        let clip = try generatedPicture("ffmpeg", ["-v", "error", "-y", "-ss", "3", "-i", Repository.path("Examples/Media/bigbuckbunny.mp4"),
                                                   "-frames:v", "1", "-vf", "scale=640:360", "-pix_fmt", "rgba", folder.path("clip.png")],
                                        in: folder, name: "clip.png")
        var random = SeededGenerator(seed: 29)
        var noise = [UInt8](repeating: 255, count: 640 * 360 * 4)
        for y in 0..<360 {
            for x in 0..<640 {
                for channel in 0..<3 {
                    let value = Double(x + y) / 1000 * 160 + 40 + Double(random.next() % 61) - 30
                    noise[(y * 640 + x) * 4 + channel] = UInt8(max(0, min(255, value)))
                }
            }
        }
        return [pattern, clip, RGBAImage(width: 640, height: 360, pixels: noise)]
    }

    @Test("Generated scenes (heads scaled, rolled by 0, ±15° and ±30°, on three backgrounds): every face found with its points; the Haar cascade beside it")
    func scenes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let backgrounds = try Self.backgrounds(in: folder)
        let astronaut = try picture(Repository.path("Examples/Media/astronaut.png"))
        let hopper = try picture(Repository.path("Examples/Media/grace_hopper.jpg"))
        let heads: [(RGBAImage, CGRect, [CGPoint], Double)] = [
            (astronaut, CGRect(x: 140, y: 30, width: 170, height: 190), Self.astronautPoints, 1.2),
            (hopper, CGRect(x: 130, y: 80, width: 270, height: 290), Self.hopperPoints, 0.7),
        ]
        var scenes: [(Scene, [CGPoint])] = []
        for (index, degrees) in [0.0, 15, -15, 30, -30].enumerated() {
            for (headIndex, head) in heads.enumerated() {
                let centre = CGPoint(x: 200 + 240 * Double((index + headIndex) % 2), y: 180 + 10 * Double(index))
                let scene = Self.scene(head.0, head: head.1, scale: head.3, degrees: degrees, centre: centre,
                                       on: backgrounds[(index + headIndex) % backgrounds.count])
                scenes.append((scene, head.2.map(scene.move)))
            }
        }
        let found = try await detect(scenes.map(\.0.image), with: try FaceLandmarkDetector())
        let haar = try await detect(scenes.map(\.0.image), with: try FaceDetector())
        #expect(found.count == scenes.count && haar.count == scenes.count)
        var meanErrors: [Double] = [], haarFound = 0
        for (index, (scene, marked)) in scenes.enumerated() {
            let faces = found[index].faces
            #expect(faces.count == 1, "scene \(index): \(faces.map(\.pixelBounds))")
            guard let landmarks = faces.first?.landmarks else { continue }
            let errors = Self.errors(landmarks, marked)
            meanErrors.append(errors.reduce(0, +) / 5)
            #expect(errors.reduce(0, +) / 5 <= 0.08, "scene \(index): \(Self.percent(errors))")
            let roll = try #require(faces.first?.rollDegrees)
            let expectedRoll = atan2(Double(marked[1].y - marked[0].y), Double(marked[1].x - marked[0].x)) * 180 / .pi
            #expect(abs(roll - expectedRoll) < 6, "scene \(index): roll \(roll)°, marked \(expectedRoll)°")
            // The Haar detector counts when its box holds the marked nose.
            if haar[index].faces.contains(where: { $0.pixelBounds.contains(marked[2]) }) { haarFound += 1 }
            _ = scene
        }
        print("generated scenes: landmarks found \(meanErrors.count) of \(scenes.count) faces, mean errors "
              + Self.percent(meanErrors) + "; the Haar cascade found \(haarFound) of \(scenes.count)")
        #expect(meanErrors.count >= haarFound)
    }

    /// (Not the clip at 5 s: there the networks find the bunny's own cartoon face, as a face.)
    @Test("Pictures without a face give none: colour bars, a test pattern, noise, frames of the bundled clip")
    func noFaces() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var images = try Self.backgrounds(in: folder)
        images.append(try generatedPicture("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "smptehdbars=size=1280x720", "-frames:v", "1",
                                                      "-pix_fmt", "rgba", folder.path("bars.png")], in: folder, name: "bars.png"))
        for second in [0.5, 2, 3.5] {
            let name = "bunny\(Int(second * 10)).png"
            images.append(try generatedPicture("ffmpeg", ["-v", "error", "-y", "-ss", "\(second)",
                                                          "-i", Repository.path("Examples/Media/bigbuckbunny.mp4"),
                                                          "-frames:v", "1", "-pix_fmt", "rgba", folder.path(name)],
                                               in: folder, name: name))
        }
        let found = try await detect(images, with: try FaceLandmarkDetector())
        #expect(found.map(\.faces.count) == Array(repeating: 0, count: images.count))
    }

    @Test("A still portrait under fresh noise each frame: one tracking ID, the points steady (spread under 1.5 % of the eye distance)")
    func steadyOnVideo() async throws {
        let portrait = try picture(Repository.path("Examples/Media/astronaut.png"))
        var random = SeededGenerator(seed: 7)
        let frames = (0..<12).map { _ in
            var pixels = portrait.pixels
            for offset in stride(from: 0, to: pixels.count, by: 4) {
                for channel in 0..<3 {
                    pixels[offset + channel] = UInt8(max(0, min(255, Int(pixels[offset + channel]) + Int(random.next() % 13) - 6)))
                }
            }
            return RGBAImage(width: portrait.width, height: portrait.height, pixels: pixels)
        }
        let found = try await detect(frames, with: try FaceLandmarkDetector())
        let faces = found.compactMap { $0.faces.count == 1 ? $0.faces.first : nil }
        #expect(faces.count == frames.count)
        #expect(Set(faces.map(\.trackingID)).count == 1)
        let eyes = faces.compactMap { $0.landmarks?.interocularDistance }
        let distance = eyes.reduce(0, +) / Double(max(1, eyes.count))
        for point in 0..<5 {
            let xs = faces.compactMap { $0.landmarks.map { Double($0.points[point].x) } }
            let ys = faces.compactMap { $0.landmarks.map { Double($0.points[point].y) } }
            func spread(_ values: [Double]) -> Double {
                let mean = values.reduce(0, +) / Double(values.count)
                return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
            }
            #expect(hypot(spread(xs), spread(ys)) / distance < 0.015, "point \(point): spread \(hypot(spread(xs), spread(ys))) px")
        }
    }

    @Test("A missing network is an error that names the file and the command that installs it")
    func missingModel() throws {
        var settings = FaceLandmarkDetector.Settings()
        settings.modelFolder = "/nonexistent/mtcnn"
        #expect {
            _ = try FaceLandmarkDetector(settings: settings)
        } throws: { error in
            "\(error)".contains("/nonexistent/mtcnn/pnet.onnx") && "\(error)".contains("make deps")
        }
    }

    @Test("A file that is not a network is an error that names it")
    func corruptModel() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for file in FaceLandmarkDetector.networkFiles {
            try FileManager.default.copyItem(atPath: FaceLandmarkDetector.defaultModelFolder + "/" + file, toPath: folder.path(file))
        }
        try Data("not a network".utf8).write(to: URL(fileURLWithPath: folder.path("rnet.onnx")))
        var settings = FaceLandmarkDetector.Settings()
        settings.modelFolder = folder.url.path
        #expect {
            _ = try FaceLandmarkDetector(settings: settings)
        } throws: { error in
            "\(error)".contains(folder.path("rnet.onnx"))
        }
    }
}
