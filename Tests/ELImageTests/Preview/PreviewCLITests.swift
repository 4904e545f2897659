import ELImage
import ELImageMedia
import Foundation
import Testing

/// `elimage run --preview` as a user runs it: on a private Xvfb, stopped with `q`, and with no
/// display at all.
@Suite("elimage run --preview")
struct PreviewCLITests {
    /// Starts `elimage` with `arguments` in `environment`; the caller waits for it.
    private func start(_ arguments: [String], environment: [String: String], folder: TemporaryFolder) throws -> Process {
        let process = Process()
        process.executableURL = BuiltProgram(name: "elimage").url
        process.arguments = arguments
        process.environment = environment
        _ = FileManager.default.createFile(atPath: folder.path("stdout"), contents: nil)
        _ = FileManager.default.createFile(atPath: folder.path("stderr"), contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path("stderr")))
        try process.run()
        return process
    }

    private func waitForExit(_ process: Process, seconds: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        return !process.isRunning
    }

    @Test("q in the window stops the run gracefully: the recording beside it is finished and playable")
    func quitKeyFinishesRecording() async throws {
        let server = try DisplayServer(.xvfb)
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("recording.mp4")
        // The bundled clip (132 frames) plays at its own pace with --preview: about 5 s.
        let process = try start(["run", BundledMedia.path("bigbuckbunny.mp4"), "--preview", "-o", output],
                                environment: server.clientEnvironment, folder: folder)
        // The window's title names the input; wait until it is mapped and showing frames.
        var windowID: String?
        let deadline = Date().addingTimeInterval(60)
        while windowID == nil, process.isRunning, Date() < deadline {
            let found = try? runTool("env", ["DISPLAY=\(server.name)", "xdotool", "search", "--onlyvisible", "--name", "elimage: "])
            windowID = found.flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first.map(String.init) }
            if windowID == nil { try await Task.sleep(for: .milliseconds(200)) }
        }
        try #require(windowID != nil, "no preview window appeared")
        try await Task.sleep(for: .seconds(1))
        try runTool("env", ["DISPLAY=\(server.name)", "xdotool", "key", "--window", windowID ?? "", "q"])
        let ended = try await waitForExit(process, seconds: 60)
        if !ended { process.terminate() }
        let said = (try? String(contentsOfFile: folder.path("stdout"), encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: folder.path("stderr"), encoding: .utf8)) ?? ""
        #expect(ended, "elimage did not end after q")
        #expect(process.terminationStatus == 0, "\(errors)")
        #expect(said.contains("window closed"))
        // Stopped early, and every frame it took in is in the finished file.
        let words = said.split(whereSeparator: \.isWhitespace)
        let written = words.firstIndex(of: "wrote").flatMap { Int(words[$0 + 1]) }
        let probed = try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                             "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output])
        let frames = Int(String(decoding: probed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(written != nil && frames == written, "summary: \(said), ffprobe: \(String(describing: frames))")
        #expect((frames ?? 0) >= 1 && (frames ?? 0) < 132)
    }

    @Test("With neither DISPLAY nor WAYLAND_DISPLAY, --preview fails with a message naming both")
    func noDisplay() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        environment.removeValue(forKey: "ELIMAGE_WINDOW_SYSTEM")
        let process = try start(["run", "--preview", "-o", folder.path("never.mp4")], environment: environment, folder: folder)
        _ = try await waitForExit(process, seconds: 60)
        let errors = (try? String(contentsOfFile: folder.path("stderr"), encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 1)
        for word in ["DISPLAY", "WAYLAND_DISPLAY", "xvfb-run", "drop --preview"] {
            #expect(errors.contains(word), "\(errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("never.mp4")))
    }
}
