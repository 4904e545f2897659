// The recording pipeline (I420 source → Grayscale → VideoEncoder → fragmented MP4) at 1280x720,
// next to the x264 command-line tool encoding the same frames with the same settings, in one run.

import ELImage
import ELImageMedia
import Foundation

/// Per-frame times of the record pipeline on the render thread (upload, grayscale, I420 packing,
/// fence, queueing; with the `.wait` policy a full queue blocks there, so in steady state a frame
/// takes as long as the slower of the render thread and the encoder thread), its end-to-end rate
/// (until the file is complete), where the encoder thread's time goes, and the x264 CLI's rate on
/// the frames the encoder got (written as Y4M first, outside the timing). On llvmpipe the GL work
/// runs on the same CPU cores as x264, so the two add up.
struct RecordBenchmark {
    let width: Int
    let height: Int
    let frames: Int
    let preset = EncoderSettings.Preset.veryfast
    let crf = 23.0

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("elimage-bench-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = try sourceFrames(in: folder)

        // The frames the encoder will get (grayscale I420), for the x264 CLI.
        let grayY4M = folder.appendingPathComponent("gray.y4m").path
        let y4m = try Y4MOutput(path: grayY4M, frameRate: 25, colorSpace: .bt709, chromaLocation: .left)
        let prepass = RawDataInput()
        prepass --> Grayscale() --> y4m
        for index in 0..<frames {
            try context.performAndWait { context in try prepass.process(frame(index, of: sources), in: context) }
        }
        _ = try blocking { try await y4m.finish() }

        // ELImage: I420 → Grayscale → VideoEncoder → MP4.
        var settings = EncoderSettings()
        settings.preset = preset
        settings.rateControl = .constantQuality(crf)
        settings.frameRate = 25
        settings.colorSpace = .bt709
        let encoder = try VideoEncoder(settings: settings)
        let input = RawDataInput()
        input --> Grayscale() --> encoder
        try encoder.start(recordingTo: folder.appendingPathComponent("record.mp4").path)
        var times: [Double] = []
        let start = ContinuousClock.now
        for index in 0..<frames {
            let buffer = frame(index, of: sources)
            times.append(try milliseconds {
                try context.performAndWait { context in try input.process(buffer, in: context) }
            })
        }
        let summary = try blocking { try await encoder.stop() }
        let total = ContinuousClock.now - start
        let warmUp = min(10, frames / 10)
        let perFrame = LatencyStatistics(milliseconds: Array(times.dropFirst(warmUp)))
        let endToEnd = elapsedMilliseconds(total) / Double(frames)

        // x264 CLI, same frames and settings (keyframe interval as VideoEncoder picks: one a second).
        let x264Start = ContinuousClock.now
        try tool("x264", ["--quiet", "--preset", preset.rawValue, "--crf", "\(Int(crf))", "--keyint", "25", "--min-keyint", "2",
                          "-o", folder.appendingPathComponent("x264.264").path, grayY4M])
        let x264PerFrame = elapsedMilliseconds(ContinuousClock.now - x264Start) / Double(frames)

        let size = "\(width)x\(height)"
        let statistics = summary.statistics
        let readback = elapsedMilliseconds(statistics.readbackTime) / Double(frames)
        let encode = elapsedMilliseconds(statistics.encodeTime) / Double(frames)
        guard summary.statistics.encoded == frames else {
            throw BenchmarkFailure("the recording encoded \(summary.statistics.encoded) of \(frames) frames")
        }
        return [
            PipelineResult(name: "record I420→Gray→VideoEncoder→MP4 \(preset) CRF \(Int(crf))", size: size,
                           latency: perFrame, ratioToBare: perFrame.p50 / x264PerFrame),
            PipelineResult(name: "record, end to end (until the MP4 is complete)", size: size,
                           latency: LatencyStatistics(milliseconds: Array(repeating: endToEnd, count: frames)),
                           ratioToBare: endToEnd / x264PerFrame),
            PipelineResult(name: "  encoder thread: GPU fence wait + readback", size: size,
                           latency: LatencyStatistics(milliseconds: Array(repeating: readback, count: frames)),
                           ratioToBare: nil),
            PipelineResult(name: "  encoder thread: x264 call + MP4 write", size: size,
                           latency: LatencyStatistics(milliseconds: Array(repeating: encode, count: frames)),
                           ratioToBare: nil),
            PipelineResult(name: "x264 CLI --preset \(preset) --crf \(Int(crf)), same frames", size: size,
                           latency: LatencyStatistics(milliseconds: Array(repeating: x264PerFrame, count: frames)),
                           ratioToBare: nil),
        ]
    }

    /// Frame `index` of the looped clip, stamped at 25 fps.
    private func frame(_ index: Int, of sources: [PixelBuffer]) -> PixelBuffer {
        var buffer = sources[index % sources.count]
        buffer.timestamp = MediaTime(frame: Int64(index), framesPerSecond: 25)
        return buffer
    }

    /// Big Buck Bunny's frames as I420 at the benchmark's size (decoded and scaled by ffmpeg).
    private func sourceFrames(in folder: URL) throws -> [PixelBuffer] {
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Media/bigbuckbunny.mp4").path
        let y4m = folder.appendingPathComponent("source.y4m").path
        try tool("ffmpeg", ["-nostdin", "-v", "error", "-i", clip, "-vf", "scale=\(width):\(height)", "-pix_fmt", "yuv420p",
                            "-frames:v", "\(min(frames, 132))", y4m])
        return try Y4MReader.readAll(path: y4m)
    }

    private func tool(_ name: String, _ arguments: [String]) throws {
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

    private func elapsedMilliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// Runs async `body` from synchronous code (the benchmark's main thread) and waits for it.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task {
        box.result = await Result { try await body() }
        done.signal()
    }
    done.wait()
    guard let result = box.result else { throw BenchmarkFailure("an async step ended without a result") }
    return try result.get()
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: written by one task before a semaphore signal, read after the wait.
    var result: Result<T, Error>?
}

extension Result where Failure == Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
