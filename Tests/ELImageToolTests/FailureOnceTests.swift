import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run` says each failure once: the render context's events are the record, and what the
/// input's run or an output's `finish()` throws is the same failure, not a second message.
@Suite("elimage: each failure said once", .closesContexts)
struct FailureOnceTests {
    let elimage = BuiltProgram(name: "elimage")

    /// How often `text` occurs in `errors`.
    func occurrences(of text: String, in errors: String) -> Int {
        errors.components(separatedBy: text).count - 1
    }

    @Test("A crop outside the picture (an event for every frame, an encoder left empty): one message, the crop's")
    func eventAndEmptyOutput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.mp4")
        try writeTestPattern(to: clip, frames: 5, ["-c:v", "libx264"])
        let result = try await elimage.run(["run", clip, "--filter", "crop:x=200,y=10,width=20,height=20",
                                            "-o", folder.path("out.mp4")])
        #expect(result.status == 1)
        #expect(occurrences(of: "outside the 96x64 frame", in: result.errors) == 1, "\(result.errors)")
        #expect(!result.errors.contains("no frame arrived"), "the encoder's complaint is the same failure: \(result.errors)")
        #expect(!result.errors.contains("ELImage:"), "nothing printed by the library beside the tool: \(result.errors)")
    }

    @Test("A movie cut short (an event and the input's thrown error): said once")
    func eventAndThrownError() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.mp4")
        try writeTestPattern(to: clip, frames: 50, ["-c:v", "libx264", "-movflags", "+faststart"])
        let whole = try Data(contentsOf: URL(fileURLWithPath: clip))
        let cut = folder.path("cut.mp4")
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: cut))
        let result = try await elimage.run(["run", cut, "-o", folder.path("out.y4m")])
        #expect(result.status == 1)
        #expect(occurrences(of: "cut short", in: result.errors) == 1, "\(result.errors)")
        #expect(!result.errors.contains("ELImage:"), "nothing printed by the library beside the tool: \(result.errors)")
    }
}
