import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Outputs are written under a temporary name and renamed into place: a run that fails before it
/// has a frame leaves a file already at the output path as it was, a run that succeeds replaces it
/// (through a symbolic link, the link's target), and nothing named `.partial` is left behind.
@Suite("elimage outputs: temporary name, then rename", .closesContexts)
struct OutputStagingTests {
    let elimage = BuiltProgram(name: "elimage")

    /// A 3-frame 96x64 Y4M clip made by ffmpeg, and the same clip cut inside its first frame.
    func inputs(in folder: TemporaryFolder) throws -> (whole: String, cut: String) {
        let whole = folder.path("clip.y4m")
        try writeTestPattern(to: whole, frames: 3)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let header = (bytes.firstIndex(of: 0x0A) ?? 0) + 1
        let cut = folder.path("cut.y4m")
        try bytes.prefix(header + 100).write(to: URL(fileURLWithPath: cut))
        return (whole, cut)
    }

    func leftovers(in folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".partial") }
    }

    @Test("A run that fails before its first frame leaves the existing output byte-identical",
          arguments: ["mp4", "h264", "y4m", "rgba", "png"])
    func failedRunKeepsExistingOutput(kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, cut) = try inputs(in: folder)
        let output = folder.path("out.\(kind)")
        let existing = Data("a file the user already had\n".utf8)
        try existing.write(to: URL(fileURLWithPath: output))
        let result = try await elimage.run(["run", cut, "-y", "-o", output])
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.contains("frame 0"), "\(result.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == existing)
        #expect(try leftovers(in: folder).isEmpty)
    }

    @Test("A run that succeeds replaces the existing output and leaves no temporary file",
          arguments: ["mp4", "h264", "y4m", "rgba", "png"])
    func successfulRunReplacesOutput(kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (whole, _) = try inputs(in: folder)
        let output = folder.path("out.\(kind)")
        try Data("old".utf8).write(to: URL(fileURLWithPath: output))
        let result = try await elimage.run(["run", whole, "-y", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try leftovers(in: folder).isEmpty)
        switch kind {
        case "rgba":
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == 3 * 96 * 64 * 4)
        case "png":
            #expect(try PNGFile.read(output).width == 96)
        default:
            #expect(try EncoderFixtures.decodedFrameCount(output) == 3)
        }
    }

    @Test("A link planted at the temporary name is not written through: its target stays byte-identical, the output is whole",
          arguments: ["mp4", "h264", "y4m", "rgba", "png", "jpg", "jsonl"])
    func plantedLinkIsNotFollowed(kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (whole, _) = try inputs(in: folder)
        let victim = folder.path("victim.txt")
        let precious = Data("a file someone else owns\n".utf8)
        try precious.write(to: URL(fileURLWithPath: victim))
        let output = folder.path("out.\(kind)")
        try FileManager.default.createSymbolicLink(atPath: output + StagedOutputFile.suffix, withDestinationPath: victim)
        let arguments = kind == "jsonl" ? ["--detect", "motion", "--metadata", output, "-o", folder.path("out.y4m")] : ["-o", output]
        let result = try await elimage.run(["run", whole, "-y"] + arguments)
        #expect(result.status == 0, "\(result.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == precious, "the link's target was written")
        #expect(try leftovers(in: folder).isEmpty)
        switch kind {
        case "rgba": #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == 3 * 96 * 64 * 4)
        case "png": #expect(try PNGFile.read(output).width == 96)
        case "jpg": #expect(try JPEGFile.read(output).width == 96)
        case "jsonl":  // nothing moves in the pattern: no line, but the file is in place
            #expect(try FileManager.default.attributesOfItem(atPath: output)[.type] as? FileAttributeType == .typeRegular)
        default: #expect(try EncoderFixtures.decodedFrameCount(output) == 3)
        }
    }

    @Test("Through a symbolic link the link stays and its target gets the new file")
    func symbolicLinkOutput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (whole, _) = try inputs(in: folder)
        let targets = try TemporaryFolder()
        defer { targets.remove() }
        let target = targets.path("real.mp4")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        let link = folder.path("link.mp4")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try await elimage.run(["run", whole, "-y", "-o", link])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try EncoderFixtures.decodedFrameCount(target) == 3)
        #expect(try leftovers(in: targets).isEmpty)
    }
}
