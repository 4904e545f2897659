import ELImage
import ELImageDetection
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// `elimage run` with the people filters (backgroundblur, backgroundreplace, personmask), which
/// add the segmentation branch themselves, and `--detect people`, on grace_hopper.jpg scaled to
/// 360 rows and centred on a 640×360 blue-gray frame (the bars are background too).
@Suite("People on the command line")
struct PeopleToolTests {
    let elimage = BuiltProgram(name: "elimage")

    /// The portrait's size in the clip and where its left edge is.
    static let (scale, left) = (360.0 / 600.0, 166.0)

    /// The 640×360 clip (20 frames, Y4M) and the same picture as PNG.
    static func clip(in folder: TemporaryFolder) throws -> (clip: String, still: String) {
        let filter = "scale=308:360,pad=640:360:166:0:color=0x3060a0"
        let clip = folder.path("portrait.y4m"), still = folder.path("portrait.png")
        try runTool("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-i", Repository.path("Examples/Media/grace_hopper.jpg"),
                               "-vf", filter + ",format=yuv420p", "-frames:v", "20", "-r", "25", clip])
        try runTool("ffmpeg", ["-v", "error", "-y", "-i", Repository.path("Examples/Media/grace_hopper.jpg"),
                               "-vf", filter, "-pix_fmt", "rgba", still])
        return (clip, still)
    }

    /// The marked person in the clip's pixels.
    static let marked: [Bool] = {
        let outline = PersonSegmentationTests.hopperOutline.map { SIMD2($0.x * 308 / 512 + left, $0.y * scale) }
        return PersonSegmentationTests.rasterized(outline, width: 640, height: 360)
    }()

    @Test("--filter personmask with --detect people: the mask of every frame covers the marked person (IoU ≥ 0.9), and each frame has its JSON line")
    func maskAndLines() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (clip, _) = try Self.clip(in: folder)
        let run = try await elimage.run(["run", clip, "--filter", "personmask", "--detect", "people", "--metadata", folder.path("people.jsonl"),
                                         "-o", folder.path("mask.y4m")])
        #expect(run.status == 0, "\(run.errors)")
        // The last frame's luma (the mask is gray: Y is the mask's level, in limited range).
        try runTool("ffmpeg", ["-v", "error", "-y", "-i", folder.path("mask.y4m"), "-vf", "select=eq(n\\,19)", "-frames:v", "1",
                               "-pix_fmt", "rgba", folder.path("last.png")])
        let last = try picture(folder.path("last.png"))
        let person = stride(from: 0, to: last.pixels.count, by: 4).map { last.pixels[$0] >= 128 }
        let score = PersonSegmentationTests.iou(person, Self.marked)
        print(String(format: "elimage run --filter personmask: IoU %.3f against the marked person", score))
        #expect(score >= 0.9)
        let lines = try String(contentsOfFile: folder.path("people.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 20)
        let markedShare = Double(Self.marked.filter { $0 }.count) / (640 * 360)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let coverage = try #require(object["coverage"] as? Double)
            #expect(object["type"] as? String == "people" && abs(coverage - markedShare) < 0.03, "\(line) (marked \(markedShare))")
        }
    }

    @Test("--filter backgroundblur: the flag behind is blurred, the bars stay their colour, the face is kept")
    func blur() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, still) = try Self.clip(in: folder)
        let run = try await elimage.run(["run", still, "--filter", "backgroundblur:strength=1", "-o", folder.path("blurred.png")])
        #expect(run.status == 0, "\(run.errors)")
        let before = try picture(still), after = try picture(folder.path("blurred.png"))
        func variance(_ image: RGBAImage, _ region: (x: Range<Int>, y: Range<Int>)) -> Double {
            let values = region.y.flatMap { y in region.x.map { x in Double(image.pixels[(y * 640 + x) * 4]) } }
            let mean = values.reduce(0, +) / Double(values.count)
            return values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
        }
        let flag = (x: 172..<230, y: 10..<120)  // the stars and stripes, left of the hat
        print(String(format: "elimage run --filter backgroundblur: flag variance %.0f → %.0f", variance(before, flag), variance(after, flag)))
        #expect(variance(after, flag) < 0.3 * variance(before, flag))
        var face = 0.0
        for y in 120..<200 { for x in 280..<360 { face += abs(Double(after.pixels[(y * 640 + x) * 4]) - Double(before.pixels[(y * 640 + x) * 4])) } }
        #expect(face / 6400 < 1, "the face changed by \(face / 6400) levels on average")
        #expect(after[40, 180] == before[40, 180])
    }

    @Test("--filter backgroundreplace --background PICTURE: the background becomes the picture, the person stays; usage errors name what is missing")
    func replace() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, still) = try Self.clip(in: folder)
        let scene = folder.path("scene.png")
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360", "-frames:v", "1", "-pix_fmt", "rgba", scene])
        let run = try await elimage.run(["run", still, "--filter", "backgroundreplace", "--background", scene, "-o", folder.path("replaced.png")])
        #expect(run.status == 0, "\(run.errors)")
        let replaced = try picture(folder.path("replaced.png")), background = try picture(scene), before = try picture(still)
        var far = 0, near = 0
        for y in 0..<360 {
            for x in 0..<640 {
                let marked = Self.marked[y * 640 + x]
                if !marked, x < 140 || x > 520, replaced[x, y] != background[x, y] { far += 1 }
                if marked, (290..<350).contains(x), (110..<180).contains(y) {
                    let a = SIMD4<Int32>(truncatingIfNeeded: replaced[x, y]), b = SIMD4<Int32>(truncatingIfNeeded: before[x, y])
                    near = max(near, Int(max(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z))))
                }
            }
        }
        #expect(far == 0, "\(far) pixels of the bars are not the new background's")
        #expect(near <= 1, "the face changed by up to \(near) levels")

        let missing = try await elimage.run(["run", still, "--filter", "backgroundreplace", "-o", folder.path("x.png")])
        #expect(missing.status != 0 && missing.errors.contains("--background"), "\(missing.errors)")
        let unused = try await elimage.run(["run", still, "--background", scene, "-o", folder.path("y.png")])
        #expect(unused.status != 0 && unused.errors.contains("backgroundreplace"), "\(unused.errors)")
        let wrongKind = try await elimage.run(["run", still, "--filter", "backgroundreplace", "--background", folder.path("none.gif"), "-o", folder.path("z.png")])
        #expect(wrongKind.status != 0 && wrongKind.errors.contains("PNG or JPEG"), "\(wrongKind.errors)")
        let afterCrop = try await elimage.run(["run", still, "--filter", "crop:width=320", "--filter", "backgroundblur", "-o", folder.path("c.png")])
        #expect(afterCrop.status != 0 && afterCrop.errors.contains("put it before") && afterCrop.errors.contains("crop:width=320"),
                "\(afterCrop.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("c.png")))
    }
}
