import ELImage
import Foundation
import Testing

/// The camera app as a user drives it, on a private Xvfb with xdotool: a photo, a recording, quit.
/// There is no camera here, so it shows the bundled clip.
@Suite("camera-app example")
struct CameraAppTests {
    @Test("p saves a photo, r starts and stops a recording, q quits with both files complete")
    func photoRecordingQuit() async throws {
        let server = try DisplayServer(.xvfb)
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let saved = try TemporaryFolder()
        defer { saved.remove() }
        let process = Process()
        process.executableURL = BuiltProgram(name: "camera-app").url
        process.arguments = ["--folder", saved.url.path]
        process.environment = server.clientEnvironment
        let outputPath = folder.path("stdout")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: folder.path("stderr"), contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path("stderr")))
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func said() -> String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
        func waitFor(_ text: String) async throws -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while !said().contains(text), process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
            return said().contains(text)
        }
        var window: String?
        let deadline = Date().addingTimeInterval(60)
        while window == nil, process.isRunning, Date() < deadline {
            let found = try? runTool("env", ["DISPLAY=\(server.name)", "xdotool", "search", "--onlyvisible", "--name", "ELImage camera"])
            window = found.flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first.map(String.init) }
            if window == nil { try await Task.sleep(for: .milliseconds(200)) }
        }
        let id = try #require(window, "no camera-app window appeared: \(said())")
        func press(_ key: String) throws {
            try runTool("env", ["DISPLAY=\(server.name)", "xdotool", "key", "--window", id, key])
        }
        try press("p")
        #expect(try await waitFor("photo saved"), "\(said())")
        try press("r")
        #expect(try await waitFor("recording to"), "\(said())")
        try await Task.sleep(for: .seconds(2))
        try press("q")
        let end = Date().addingTimeInterval(60)
        while process.isRunning, Date() < end { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!process.isRunning, "camera-app did not quit on q")
        #expect(process.terminationStatus == 0, "\(said())")

        let files = try FileManager.default.contentsOfDirectory(atPath: saved.url.path)
        let photo = try #require(files.first { $0.hasSuffix(".png") }, "no photo in \(files)")
        let video = try #require(files.first { $0.hasSuffix(".mp4") }, "no recording in \(files)")
        let size = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                                           saved.path(photo)])
        #expect(String(decoding: size, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "1280,720")
        let counted = try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                              "stream=nb_read_frames", "-of", "csv=p=0", saved.path(video)])
        let frames = Int(String(decoding: counted, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(frames >= 1)
        #expect(said().contains("recorded \(frames) frames"), "\(said())")
    }
}
