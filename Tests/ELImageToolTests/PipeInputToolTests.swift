import ELImageTestSupport
import Foundation
import Testing

/// Inputs that are not regular files: a Y4M stream through a FIFO is read once, from its header
/// on; a movie (opened more than once) and a picture (whose header is read before the rest) are
/// refused with what the path is.
@Suite("elimage run FIFO")
struct PipeInputToolTests {
    let elimage = BuiltProgram(name: "elimage")

    @Test("A Y4M stream written by ffmpeg into a FIFO: every frame arrives")
    func y4mThroughFIFO() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let fifo = folder.path("camera.y4m")
        try #require(mkfifo(fifo, 0o600) == 0)
        // The writer blocks until the FIFO is opened for reading; `timeout` ends it if that never happens.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = ["timeout", "60", "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25",
                            "-frames:v", "10", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", fifo]
        try writer.run()
        let output = folder.path("out.y4m")
        let result = try await elimage.run(["run", fifo, "-o", output])
        writer.waitUntilExit()
        #expect(result.status == 0, "\(result.errors)")
        #expect(writer.terminationStatus == 0)
        let frames = try runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                             "-of", "csv=p=0", output])
        #expect(String(decoding: frames, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "10")
    }

    @Test("A FIFO named like a movie or a picture is refused with what it is, without waiting for a writer", arguments: [
        ("live.ts", "out.y4m", ["is a FIFO (named pipe), not a file: a movie is opened more than once",
                                "send the pictures through the pipe as Y4M"]),
        ("photo.png", "out.png", ["is a FIFO (named pipe), not a regular file. a PNG or JPEG picture is read from a regular file"]),
    ])
    func refusedFIFO(name: String, output: String, messages: [String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let fifo = folder.path(name)
        try #require(mkfifo(fifo, 0o600) == 0)
        let result = try await elimage.run(["run", fifo, "-o", folder.path(output)])
        #expect(result.status == 1)
        for message in messages {
            #expect(result.errors.contains(message), "\(result.errors)")
        }
        #expect(result.errors.contains("\(fifo) is a FIFO"), "\(result.errors)")
    }
}
