import ELImage
import ELImageMedia
import Foundation

/// The benchmark's input: Big Buck Bunny (Examples/Media) decoded and scaled by ffmpeg to I420 at
/// one size, kept as a Y4M file (for the tools compared with) and in memory (looped, stamped at
/// 25 fps). Natural content matters for the encoder's cost.
struct SourceClip {
    let width: Int
    let height: Int
    let path: String
    let frames: [PixelBuffer]
    var sizeName: String { "\(width)x\(height)" }

    init(width: Int, height: Int, frameCount: Int, folder: URL) throws {
        self.width = width
        self.height = height
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Media/bigbuckbunny.mp4").path
        path = folder.appendingPathComponent("source-\(width)x\(height).y4m").path
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", clip, "-vf", "scale=\(width):\(height)",
                               "-pix_fmt", "yuv420p", "-frames:v", "\(frameCount)", path])
        frames = try Y4MReader.readAll(path: path).enumerated().map { index, buffer in
            var stamped = buffer
            stamped.timestamp = MediaTime(frame: Int64(index), framesPerSecond: 25)
            stamped.colorSpace = .bt709
            return stamped
        }
        guard !frames.isEmpty else { throw BenchmarkFailure("ffmpeg decoded no frame of \(clip)") }
    }

    /// Frame `index` of the looped clip, stamped at 25 fps.
    func frame(_ index: Int) -> PixelBuffer {
        var buffer = frames[index % frames.count]
        buffer.timestamp = MediaTime(frame: Int64(index), framesPerSecond: 25)
        return buffer
    }
}

/// Runs a command-line tool found on PATH, its output dropped; throws when it fails.
func runTool(_ name: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [name] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchmarkFailure("\(name) exited with \(process.terminationStatus) (is it installed?)")
    }
}

/// Whether `name` is an executable on PATH.
func toolExists(_ name: String) -> Bool {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
}

/// Milliseconds in `duration`.
func elapsedMilliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
