import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run --explain`: the plan printed at the first frame says what runs (nodes, passes,
/// the fused line or why there is none, threads), and the run itself is unchanged.
@Suite("elimage: --explain", .closesContexts)
struct ExplainTests {
    let elimage = BuiltProgram(name: "elimage")

    /// Three 128x72 frames of a test pattern as a Y4M file (I420, on a 25 fps grid).
    static func clip(in folder: TemporaryFolder) throws -> String {
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, size: "128x72", frames: 3)
        return clip
    }

    @Test("A colour chain into Y4M: the plan shows the fused line, and the file is the same as without --explain")
    func fusedLine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try Self.clip(in: folder)
        let filters = ["--filter", "brightness:brightness=0.1", "--filter", "grayscale"]
        let explained = try await elimage.run(["run", clip] + filters + ["-o", folder.path("explained.y4m"), "--explain"])
        #expect(explained.status == 0, "\(explained.errors)")
        let plan = explained.output + explained.errors
        #expect(plan.contains("plan at the first picture (128x72):"), "\(plan)")
        #expect(plan.contains("(plan compiled 1 time, formats agreed 1 time)"), "\(plan)")
        #expect(plan.contains("ColorChain#") && plan.contains("1 pass (brightness → grayscale)"), "\(plan)")
        // On a software renderer the render thread reads back (one GL context); on a GPU the worker.
        #expect(plan.contains("packs I420 (matched chroma) and reads it back on the render thread (one GL context), writes on ELImage.y4m")
                || plan.contains("packs I420 (matched chroma) on the render thread, reads back on ELImage.y4m"), "\(plan)")
        #expect(plan.contains("latest picture: fused, 1 pass from the uploaded planes: Y'CbCr → brightness → grayscale → the Y' rows"),
                "\(plan)")
        #expect(plan.contains("threads: ELImage.render"), "\(plan)")
        // The renderer as the driver names it, with its GL version (Mesa here, a GPU's driver elsewhere).
        #expect(plan.contains(/\nrenderer: [^\n]+, OpenGL ES 3\.\d/), "\(plan)")
        let plain = try await elimage.run(["run", clip] + filters + ["-o", folder.path("plain.y4m")])
        #expect(plain.status == 0, "\(plain.errors)")
        #expect(!(plain.output + plain.errors).contains("plan at the first picture"))
        let explainedBytes = try Data(contentsOf: URL(fileURLWithPath: folder.path("explained.y4m")))
        #expect(explainedBytes.count > 3 * 128 * 72)
        #expect(explainedBytes == (try Data(contentsOf: URL(fileURLWithPath: folder.path("plain.y4m")))))
    }

    @Test("A blur into MP4: the plan says why the line is not fused and which thread encodes")
    func notFused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try Self.clip(in: folder)
        let result = try await elimage.run(["run", clip, "--filter", "blur", "-o", folder.path("out.mp4"), "--explain"])
        #expect(result.status == 0, "\(result.errors)")
        let plan = result.output + result.errors
        #expect(plan.contains("GaussianBlur#") && plan.contains("2 passes (separable"), "\(plan)")
        #expect(plan.contains("VideoEncoder#") && plan.contains("muxes on ELImage.encoder"), "\(plan)")
        #expect(plan.contains("not fused: GaussianBlur#") && plan.contains("is not a per-pixel colour filter"), "\(plan)")
        let frames = String(decoding: try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                              "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                                                              folder.path("out.mp4")]), as: UTF8.self)
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
    }
}
