import ArgumentParser
import ELImage
import ELImageKit
import ELImageMedia
import Foundation
import Synchronization

/// The record example's input: any `MediaSource` (camera, movie, Y4M, image), or a test picture
/// that pans over the bundled astronaut photo.
struct RecordSource: Sendable {
    let node: ImageOutput
    let run: @Sendable (RenderContext) async throws -> Void
    /// Stops reading the input; `run` then returns after end-of-stream.
    let close: @Sendable () async -> Void
    /// True for a camera: live frames, recorded with the default microphone.
    var isLive = false

    /// `path`, or the first camera, or the bundled clip; or the test picture when asked for.
    /// `realTime` paces a file as a camera would deliver it (for a live stream).
    static func open(_ path: String?, frames: Int?, testPicture: Bool, size: String, realTime: Bool = false) throws -> RecordSource {
        if testPicture { return try panning(frames: frames ?? 150, size: size) }
        var options = MediaSource.Options(frames: frames)
        options.realTime = realTime
        let source = try MediaSource.open(path, fallback: BundledMedia.path("bigbuckbunny.mp4"), options: options)
        let isCamera = if case .camera = source.kind { true } else { false }
        return RecordSource(node: source.node, run: { try await source.run(on: $0) }, close: { await source.close() },
                            isLive: isCamera)
    }

    /// `frames` frames at 30 fps of a `size` window panning over the astronaut, scaled up to
    /// leave room to move. Each frame is uploaded straight from the big picture (row stride).
    static func panning(frames: Int, size: String) throws -> RecordSource {
        let parts = size.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] % 2 == 0, parts[1] % 2 == 0 else {
            throw ValidationError("--size \(size) is not an even WIDTHxHEIGHT")
        }
        let (width, height) = (parts[0], parts[1])
        let photoPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Media/astronaut.png").path
        let photo = try PNGFile.read(photoPath)
        let side = max(width, height) + 128
        let big = scaled(photo, to: side)
        let input = RawDataInput()
        let stopped = Atomic<Bool>(false)
        return RecordSource(node: input, run: { context in
            for index in 0..<frames where !stopped.load(ordering: .acquiring) {
                let phase = index % 256, step = phase < 128 ? phase : 255 - phase  // there and back
                let x = step * (side - width) / 128, y = step * (side - height) / 128
                try await context.perform { context in
                    try big.withUnsafeBytes { bytes in
                        let start = (y * side + x) * 4
                        try input.process(UnsafeRawBufferPointer(rebasing: bytes[start...]), width: width, height: height,
                                          bytesPerRow: side * 4, format: .rgba,
                                          timestamp: MediaTime(frame: Int64(index), framesPerSecond: 30), in: context)
                    }
                }
            }
            try await context.perform { context in input.finish(in: context) }
        }, close: { stopped.store(true, ordering: .releasing) })
    }

    /// Nearest-neighbour scaling to `side` x `side` (done once).
    static func scaled(_ image: RGBAImage, to side: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        image.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                for y in 0..<side {
                    let row = (y * image.height / side) * image.width
                    for x in 0..<side {
                        let from = (row + x * image.width / side) * 4, to = (y * side + x) * 4
                        for channel in 0..<4 { target[to + channel] = source[from + channel] }
                    }
                }
            }
        }
        return pixels
    }
}

/// Raw `.h264` for such paths, else MP4 with fragments of `fragmentSeconds`.
func container(for path: String, fragmentSeconds: Double) -> ContainerFormat {
    if case .annexB = ContainerFormat.forPath(path) { return .annexB() }
    return .mp4(fragmentDuration: .milliseconds(Int((fragmentSeconds * 1000).rounded())))
}

/// Prints a line at once (unbuffered), so a parent process reading the pipe sees progress live.

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
