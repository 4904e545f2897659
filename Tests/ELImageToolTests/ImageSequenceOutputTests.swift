import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run ... -o out_%05d.png|jpg`: numbered files written by `FileOutput.imageSequence`,
/// read back by ffprobe and ffmpeg.
@Suite("elimage image sequences")
struct ImageSequenceOutputTests {
    let elimage = BuiltProgram(name: "elimage")

    /// A 4:4:4 clip (no chroma upsampling to disagree on), `frames` long, 96x64.
    func clip(in folder: TemporaryFolder, frames: Int) throws -> String {
        let path = folder.path("clip.y4m")
        try writeTestPattern(to: path, frames: frames, pixelFormat: "yuv444p")
        return path
    }

    /// Every frame of `input` (a file or an image2 pattern) as RGBA, decoded by ffmpeg.
    func ffmpegFrames(_ input: String, size: Int) throws -> [[UInt8]] {
        let bytes = [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", input, "-f", "rawvideo", "-pix_fmt", "rgba", "-"]))
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    @Test("Numbered PNG/JPEG files: ffprobe counts every frame at its size, ffmpeg decodes each like the input",
          arguments: ["png", "jpg"])
    func sequenceDecodes(kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try clip(in: folder, frames: 4)
        let pattern = folder.path("out_%05d.\(kind)")
        let result = try await elimage.run(["run", input, "-o", pattern])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("wrote 4 frames"), "\(result.output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("out_") }.sorted()
        #expect(names == (0..<4).map { String(format: "out_%05d.\(kind)", $0) }, "no temporary file is left")

        let probe = String(decoding: try runTool("ffprobe", [
            "-v", "error", "-f", "image2", "-count_frames", "-show_entries", "stream=nb_read_frames,width,height",
            "-of", "csv=p=0", pattern]), as: UTF8.self)
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "96,64,4")

        let size = 96 * 64 * 4
        let written = try ffmpegFrames(pattern, size: size)
        let reference = try ffmpegFrames(input, size: size)
        #expect(written.count == 4 && reference.count == 4)
        for (index, (frame, expected)) in zip(written, reference).enumerated() {
            let difference = MovieFixtures.compareRGB(frame, expected)
            print("\(kind) frame \(index): mean \(difference.mean), max \(difference.max)")
            if kind == "png" {
                #expect(difference.max <= 3, "frame \(index): \(difference)")  // the two conversions' rounding
            } else {
                // JPEG at quality 92 with 4:2:0 chroma: testsrc2's sharp coloured edges at 96x64
                // cost about 6.5 on average; a wrong, shifted or swapped picture costs far more.
                #expect(difference.mean <= 10, "frame \(index): \(difference)")
            }
        }
    }

    @Test("A file that cannot be written ends the run naming it; the files before stay, complete")
    func failureKeepsWrittenFiles() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try clip(in: folder, frames: 5)
        // Frame 2's name is taken by a folder: its file cannot be put in place.
        try FileManager.default.createDirectory(atPath: folder.path("out_00002.png"), withIntermediateDirectories: false)
        let result = try await elimage.run(["run", input, "-o", folder.path("out_%05d.png")])
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.contains("out_00002.png"), "\(result.errors)")
        for index in 0..<2 {
            let image = try PNGFile.read(folder.path(String(format: "out_%05d.png", index)))
            #expect(image.width == 96 && image.height == 64)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("out_00003.png")))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("A name with a % conversion that is not one number is refused before anything is written, naming it")
    func unsafePatternRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try clip(in: folder, frames: 2)
        for pattern in ["out_%s.png", "out_%d_%d.png", "out_%x.jpg"] {
            let result = try await elimage.run(["run", input, "-o", folder.path(pattern)])
            #expect(result.status != 0, "\(pattern): \(result.output)")
            #expect(result.errors.contains(pattern) && result.errors.contains("%d"), "\(pattern): \(result.errors)")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("out_") }
        #expect(written.isEmpty, "\(written)")
    }
}

/// `NumberedFileName`: the printf-like pattern of an image sequence, parsed without printf.
@Suite("Numbered file names")
struct NumberedFileNameTests {
    @Test("%d, %4d, %04d and %% name the frames as printf would")
    func names() throws {
        let cases: [(String, Int, String)] = [
            ("f%05d.png", 7, "f00007.png"), ("f%d.png", 12, "f12.png"), ("f%3d.png", 7, "f  7.png"),
            ("100%%_%02d.jpg", 7, "100%_07.jpg"), ("f%02d.png", 123, "f123.png"), ("%d", 0, "0"),
        ]
        for (pattern, index, expected) in cases {
            let name = try NumberedFileName(pattern)
            #expect(name.isNumbered)
            #expect(name.path(index: index) == expected, "\(pattern)")
            #expect(name.path(index: index) == String(format: pattern, index), "printf agrees for \(pattern)")
        }
        let single = try NumberedFileName("still.png")
        #expect(!single.isNumbered && single.path(index: 3) == "still.png")
        #expect(try NumberedFileName("50%%.png").path(index: 0) == "50%.png")
    }

    @Test("Other conversions, two numbers, a trailing % and huge widths are refused", arguments: [
        "f%s.png", "f%x.png", "f%d%d.png", "f%.png", "f%", "f%123d.png", "f%-3d.png", "f%ld.png",
    ])
    func refused(pattern: String) {
        #expect(throws: ELImageError.self) { try NumberedFileName(pattern) }
    }
}
