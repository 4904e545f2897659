import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run --preview` as a user runs it: on a private Xvfb, stopped with `q`, and with no
/// display at all.
@Suite("elimage run --preview")
struct PreviewCLITests {
    @Test("q in the window stops the run gracefully: the recording beside it is finished and playable")
    func quitKeyFinishesRecording() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("preview-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        // The bundled clip (132 frames) plays at its own pace with --preview: about 5 s.
        let run = try SignalledRun(program: BuiltProgram(name: "elimage"),
                                   arguments: ["run", BundledMedia.path("bigbuckbunny.mp4"), "--preview", "-o", output],
                                   environment: server.clientEnvironment)
        let window = try await server.window(titled: "elimage: ", while: { run.process.isRunning })
        let id = try #require(window, "no preview window appeared")
        // Frames are being recorded: the first fragment is on disk.
        try await run.waitUntil(file: output + StagedOutputFile.suffix) { $0.range(of: Data("moof".utf8)) != nil }
        try server.press("q", in: id)
        let ended = await run.waitForExit()
        let said = run.output, errors = run.errors
        #expect(ended, "elimage did not end after q")
        #expect(run.process.terminationStatus == 0, "\(errors)")
        #expect(said.contains("window closed"))
        // Stopped early, and every frame it took in is in the finished file.
        let words = said.split(whereSeparator: \.isWhitespace)
        let written = words.firstIndex(of: "wrote").flatMap { Int(words[$0 + 1]) }
        let frames = try countFrames(output)
        #expect(written != nil && frames == written, "summary: \(said), ffprobe: \(frames)")
        #expect(frames >= 1 && frames < 132)
    }

    @Test("With neither DISPLAY nor WAYLAND_DISPLAY, --preview fails with a message naming both")
    func noDisplay() async throws {
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "ELIMAGE_WINDOW_SYSTEM"] { environment.removeValue(forKey: name) }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("never-\(UUID().uuidString).mp4").path
        let run = try SignalledRun(program: BuiltProgram(name: "elimage"), arguments: ["run", Repository.path("Examples/Media/bigbuckbunny.mp4"), "--preview", "-o", output],
                                   environment: environment)
        _ = await run.waitForExit()
        #expect(run.process.terminationStatus == 1)
        for word in ["DISPLAY", "WAYLAND_DISPLAY", "xvfb-run", "drop --preview"] {
            #expect(run.errors.contains(word), "\(run.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

/// The video frames ffprobe decodes in `path`.
func countFrames(_ path: String) throws -> Int {
    let counted = try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                          "stream=nb_read_frames", "-of", "csv=p=0", path])
    return Int(String(decoding: counted, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}
