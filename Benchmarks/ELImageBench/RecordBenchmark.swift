// The recording pipeline (I420 source → Grayscale → VideoEncoder → fragmented MP4) next to its floor:
// the bare-GLES floor (FloorPipeline, grayscale) and libx264 called in sequence on the same frames with
// the same settings, in one run, alternating.

import ELImage
import ELImageMedia
import Foundation

/// End-to-end ms/frame of the record pipeline (from the first frame in until the MP4 is complete,
/// so the encoder's queue cannot hide work), fused (the default graph: one gray pass into the
/// encoder's packed frame) and with fusion off, against the floor plus x264 in sequence; the
/// better of two alternating runs each. Also where the encoder thread's time goes. On llvmpipe the GL work
/// runs on the same CPU cores as x264's threads.
struct RecordBenchmark {
    let clip: SourceClip
    let frames: Int
    let preset = EncoderSettings.Preset.veryfast
    let crf = 23.0

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("elimage-bench-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var framework: [Bool: [Double]] = [:], floor: [Double] = []
        var statistics: [Bool: RecordingStatistics] = [:]
        for round in 0..<2 {
            for fusing in [true, false] {
                let path = folder.appendingPathComponent("record\(round)-\(fusing).mp4").path
                let (perFrame, summary) = try recordWithFramework(to: path, fusing: fusing, on: context)
                framework[fusing, default: []].append(perFrame)
                statistics[fusing] = summary.statistics
            }
            floor.append(try recordWithFloor(on: context))
        }
        let size = clip.sizeName
        let floorBest = floor.min() ?? 0
        func constant(_ value: Double) -> LatencyStatistics {
            LatencyStatistics(milliseconds: Array(repeating: value, count: frames))
        }
        return [true, false].map { fusing in
            let best = framework[fusing]?.min() ?? 0
            let recorded = statistics[fusing] ?? RecordingStatistics()
            let readback = elapsedMilliseconds(recorded.readbackTime) / Double(frames)
            let encode = elapsedMilliseconds(recorded.encodeTime) / Double(frames)
            return PipelineResult(
                name: "record I420→Gray→x264 \(preset)→MP4" + (fusing ? ", fused" : ", unfused"),
                size: size, latency: constant(best), ratioToBare: best / floorBest,
                stages: ["encoder thread: fence wait + readback": readback, "encoder thread: x264 + MP4": encode])
        } + [PipelineResult(name: "record, floor then libx264 in sequence", size: size, latency: constant(floorBest),
                            ratioToBare: nil)]
    }

    private func settings() -> EncoderSettings {
        var settings = EncoderSettings()
        settings.preset = preset
        settings.rateControl = .constantQuality(crf)
        settings.frameRate = 25
        settings.colorSpace = .bt709
        return settings
    }

    /// ms/frame from the first frame until the file is complete.
    private func recordWithFramework(to path: String, fusing: Bool, on context: RenderContext) throws -> (Double, RecordingSummary) {
        let encoder = try VideoEncoder(settings: settings())
        let input = RawDataInput(fusingPasses: fusing)
        input --> Grayscale() --> encoder
        try encoder.start(recordingTo: path)
        let start = ContinuousClock.now
        for index in 0..<frames {
            let buffer = clip.frame(index)
            try context.performAndWait { context in try input.process(buffer, in: context) }
        }
        let summary = try blocking { try await encoder.finish() }
        let perFrame = elapsedMilliseconds(ContinuousClock.now - start) / Double(frames)
        guard summary.statistics.encoded == frames else {
            throw BenchmarkFailure("the recording encoded \(summary.statistics.encoded) of \(frames) frames")
        }
        return (perFrame, summary)
    }

    /// ms/frame of the floor and libx264 in sequence on the render thread, x264 flushed at the end.
    private func recordWithFloor(on context: RenderContext) throws -> Double {
        let (width, height, frames, clip) = (clip.width, clip.height, frames, clip)
        let preset = preset.rawValue, crf = Float(crf)
        return try context.performAndWait { _ in
            let floor = try FloorPipeline(width: width, height: height, filter: .grayscale)
            defer { floor.delete() }
            return try floor.msPerFrameWithX264(clip: clip, frames: frames, preset: preset, crf: crf)
        }
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
