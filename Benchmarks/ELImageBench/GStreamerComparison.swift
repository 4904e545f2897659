import Foundation

/// GStreamer's GL elements doing the grayscale pipeline on the same frames (raw I420 in, I420 out):
/// `rawvideoparse ! glupload ! glcolorconvert ! glcolorbalance saturation=0 ! glcolorconvert !
/// gldownload ! fakesink`, timed as whole gst-launch-1.0 runs of N frames and of 1 frame, so that
/// start-up cancels: (t(N) − t(1)) / (N − 1), best of `rounds`. GStreamer's GL needs a window
/// system here (its EGL display is the default one), so the runs get a private Xvfb server.
struct GStreamerComparison {
    let clip: SourceClip
    let frames: Int
    let rounds = 2

    /// ms/frame, or why it could not be measured ("gstreamer not installed", ...).
    func run() throws -> Result<Double, BenchmarkFailure> {
        guard toolExists("gst-launch-1.0") else { return .failure(BenchmarkFailure("gstreamer not installed (gst-launch-1.0 missing)")) }
        guard toolExists("Xvfb") else { return .failure(BenchmarkFailure("Xvfb not installed (GStreamer's GL needs a display)")) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("elimage-bench-gst-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        defer { try? FileManager.default.removeItem(at: folder) }
        let frameBytes = clip.width * clip.height * 3 / 2
        func writeRaw(_ count: Int) throws -> String {
            var bytes = Data(capacity: frameBytes * count)
            for index in 0..<count { bytes.append(contentsOf: clip.frames[index % clip.frames.count].data.prefix(frameBytes)) }
            let path = folder.appendingPathComponent("frames-\(count).yuv").path
            try bytes.write(to: URL(fileURLWithPath: path))
            return path
        }
        let many = try writeRaw(frames), one = try writeRaw(1)
        let server = try PrivateXServer(runtimeDirectory: folder.path)
        defer { server.stop() }
        var best = Double.infinity
        for _ in 0..<rounds {
            let long = try time(path: many, frameBytes: frameBytes, display: server.display, runtime: folder.path)
            let short = try time(path: one, frameBytes: frameBytes, display: server.display, runtime: folder.path)
            best = min(best, (long - short) / Double(frames - 1))
        }
        return .success(best)
    }

    /// Wall-clock ms of one gst-launch-1.0 run over the file at `path`.
    private func time(path: String, frameBytes: Int, display: String, runtime: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["DISPLAY=\(display)", "XDG_RUNTIME_DIR=\(runtime)", "GST_GL_PLATFORM=egl", "GST_GL_API=gles2",
                             "gst-launch-1.0", "-q", "filesrc", "location=\(path)", "blocksize=\(frameBytes)", "!",
                             "rawvideoparse", "width=\(clip.width)", "height=\(clip.height)", "format=i420", "framerate=25/1", "!",
                             "glupload", "!", "glcolorconvert", "!", "glcolorbalance", "saturation=0", "!", "glcolorconvert", "!",
                             "gldownload", "!", "video/x-raw,format=I420", "!", "fakesink", "sync=false"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("gst-launch-1.0 exited with \(process.terminationStatus) on the GL grayscale pipeline (are gstreamer1.0-gl and gstreamer1.0-plugins-base installed?)")
        }
        return elapsedMilliseconds(ContinuousClock.now - start)
    }
}

/// An Xvfb server on a free display number, stopped by its process id.
final class PrivateXServer {
    let display: String
    private let process: Process

    init(runtimeDirectory: String) throws {
        guard let number = (90..<190).first(where: { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
                                                     && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock") })
        else { throw BenchmarkFailure("no free X display number between :90 and :189 for Xvfb") }
        display = ":\(number)"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["Xvfb", display, "-screen", "0", "64x64x24", "-nolisten", "tcp"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
            guard process.isRunning, ContinuousClock.now < deadline else {
                stop()
                throw BenchmarkFailure("Xvfb \(display) did not start within 20 s")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
