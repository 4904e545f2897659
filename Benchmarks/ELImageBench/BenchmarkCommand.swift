// elimage-bench: per-frame cost of ELImage's canonical pipelines next to the bare-GLES floor (the
// least GL work for the same output, FloorPipeline) measured in the same run, interleaved, after
// warm-up; the record pipeline next to the floor plus libx264 in sequence; GStreamer's GL elements
// on the grayscale pipeline; time to first frame; the matrix of every catalogue filter x output kind x
// size through the `elimage` binary next to it, end to end (MatrixBenchmark); FFmpeg's encoders
// behind `elimage run -o .mkv/.webm/.gif/.webp` next to FFmpeg's own encode (EncoderComparison).
//
//     swift run -c release elimage-bench [--quick] [--frames 60] [--size 1280x720 ...] [--json-file F]
//         [--pipeline matrix [--matrix-filter NAME ...]]
import ArgumentParser
import ELImage
import Foundation

@main
struct BenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "elimage-bench",
        abstract: "Per-frame cost of ELImage pipelines vs. the bare-GLES floor, p50/p99, in one run.")

    @Option(help: "Frames measured per pipeline and size (after warm-up; default 60). For the matrix: the frames of its long runs (default 25, 15 with --quick).")
    var frames: Int?

    @Option(help: "Frame sizes, e.g. 1280x720 (repeatable; default 1280x720 and 1920x1080).")
    var size: [String] = []

    @Flag(help: "A quick run: 20 frames, 1280x720 only (the matrix: runs of 15 and 5 frames).")
    var quick = false

    /// What can be measured.
    enum Pipeline: String, ExpressibleByArgument, CaseIterable {
        case conversion, grayscale, grayscaleFused = "grayscale-fused", colorFused = "color-fused", beauty, record, y4m, gstreamer,
             filters, detection, matrix, virtualCamera = "virtual-camera", encoders
    }

    @Option(help: "Pipelines (repeatable): conversion, grayscale, grayscale-fused, beauty, record, y4m, virtual-camera, gstreamer, encoders, matrix (default: these ten), color-fused, filters, detection.")
    var pipeline: [Pipeline] = []

    @Option(name: .customLong("matrix-filter"), help: "A catalogue filter for the matrix (repeatable; default: every filter `elimage filters` lists).")
    var matrixFilters: [String] = []

    @Option(name: .customLong("matrix-short-frames"), help: "Frames of the matrix's short runs, whose time is subtracted (start-up).")
    var matrixShortFrames = 5

    @Option(name: .customLong("matrix-repeats"), help: "Pairs of runs (long, short) per matrix cell, each with its floor between.")
    var matrixRepeats = 2

    @Option(help: "The elimage binary the matrix runs (default: the one next to this program).")
    var elimage: String?

    @Option(help: "Where the clips and every output are written, the floor's and elimage's alike (default: the temporary folder). A folder in memory (/dev/shm) takes the disk's write-back out of the comparison.")
    var folder: String?

    @Option(help: "Also write the results as JSON to this file.")
    var jsonFile: String?

    @Flag(help: "Print JSON instead of the table.")
    var json = false

    func run() throws {
        let pipelines = pipeline.isEmpty ? [.conversion, .grayscale, .grayscaleFused, .beauty, .record, .y4m, .virtualCamera, .gstreamer, .encoders, .matrix] : pipeline
        let frames = quick ? min(self.frames ?? 60, 20) : self.frames ?? 60
        // The matrix's long runs: 25 frames keep the default run (both sizes, 51 cells each, most of
        // them 2 x (25 + 5) frames of elimage plus 2 x 25 of the floor) near 20 minutes on 2 cores.
        let matrixFrames = quick ? min(self.frames ?? 15, 15) : self.frames ?? 25
        guard matrixRepeats > 0 else { throw ValidationError("--matrix-repeats must be at least 1") }
        let sizes = try (size.isEmpty ? (quick ? ["1280x720"] : ["1280x720", "1920x1080"]) : size).map(Self.parseSize)
        let base = folder.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
        let folder = base.appendingPathComponent("elimage-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let machine = MachineDescription.current  // before the benchmark's own load
        let contextStart = ContinuousClock.now
        let context = try RenderContext()
        let contextMilliseconds = elapsedMilliseconds(ContinuousClock.now - contextStart)
        // Every program closes its context before it ends: threads joined, EGL torn down.
        defer { _ = try? blocking { await context.close() } }
        // The matrix's binary and filters are checked before anything is measured.
        let matrixBenchmark = pipelines.contains(.matrix) ? MatrixBenchmark(
            elimage: elimage ?? MatrixBenchmark.defaultElimagePath(), sizes: sizes,
            filters: matrixFilters.isEmpty ? nil : matrixFilters, frames: matrixFrames,
            shortFrames: matrixShortFrames, repeats: matrixRepeats, folder: folder) : nil
        let matrixFilterNames = try matrixBenchmark?.chosenFilters()
        var results: [PipelineResult] = []
        var startup: Startup?
        var gstreamerNote: String?
        let measuresClip = pipelines.contains { $0 != .matrix }
        var missingEncoders: [String] = []
        for (width, height) in sizes where measuresClip {
            let clip = try SourceClip(width: width, height: height, frameCount: min(max(frames, 25), 100), folder: folder)
            if startup == nil {
                startup = try Startup.measure(contextMilliseconds: contextMilliseconds, clip: clip, on: context)
            }
            for kind in FloorComparison.Pipeline.allCases where pipelines.contains(Pipeline(rawValue: kind.rawValue) ?? .filters) {
                results += try FloorComparison(pipeline: kind, clip: clip, frames: frames).run(on: context)
            }
            if pipelines.contains(.colorFused) {
                results += try FusedColorComparison(clip: clip, frames: frames).run(on: context)
            }
            if pipelines.contains(.record) {
                results += try RecordBenchmark(clip: clip, frames: frames).run(on: context)
            }
            if pipelines.contains(.y4m) {
                results += try Y4MFileBenchmark(clip: clip, frames: frames).run(on: context)
            }
            if pipelines.contains(.virtualCamera) {
                results += try VirtualCameraBenchmark(clip: clip, frames: frames).run(on: context)
            }
            if pipelines.contains(.encoders) {
                // The matrix's run lengths: whole runs of the binary, start-up subtracted.
                let comparison = EncoderComparison(elimage: elimage ?? MatrixBenchmark.defaultElimagePath(), clip: clip,
                                                   frames: matrixFrames, shortFrames: matrixShortFrames, repeats: matrixRepeats,
                                                   folder: folder)
                let (rows, missing) = try comparison.run()
                results += rows
                missingEncoders = missing
            }
            if pipelines.contains(.gstreamer) {
                switch try GStreamerComparison(clip: clip, frames: max(frames, 20)).run() {
                case .success(let milliseconds):
                    // Against the same graph with fusion off, and as the framework runs it by default (fused).
                    let ratios = [("grayscale I420", "fusion off"), ("grayscale-fused I420", "default, fused")].compactMap { prefix, label in
                        results.first { $0.name.hasPrefix(prefix) && $0.size == clip.sizeName }
                            .map { String(format: "%.2fx", milliseconds / $0.latency.p50) + " (\(label))" }
                    }
                    results.append(PipelineResult(
                        name: "grayscale, GStreamer GL (gst-launch-1.0)", size: clip.sizeName,
                        latency: LatencyStatistics(milliseconds: [milliseconds]), ratioToBare: nil,
                        note: ratios.isEmpty ? nil : "GStreamer / ELImage " + ratios.joined(separator: ", ")))
                case .failure(let failure):
                    gstreamerNote = failure.description
                }
            }
        }
        if [Pipeline.filters, .detection].contains(where: pipelines.contains) {
            if pipelines.contains(.filters) { results += try FilterBenchmark(width: 1280, height: 720, frames: frames).run(on: context) }
            if pipelines.contains(.detection) { results += try DetectionBenchmark(frames: frames).run(on: context) }
        }
        var matrix: Matrix?
        if let matrixBenchmark, let matrixFilterNames {
            let start = ContinuousClock.now
            let cells = try matrixBenchmark.run(matrixFilterNames, on: context)
            matrix = Matrix(frames: matrixFrames, shortFrames: matrixShortFrames, repeats: matrixRepeats,
                            outputs: FileSystemKind.describe(base.path),
                            wallSeconds: elapsedMilliseconds(ContinuousClock.now - start) / 1000, cells: cells)
        }
        let report = Report(date: Date().formatted(.iso8601.year().month().day()), machine: machine,
                            renderer: context.info.renderer, platform: context.info.platform.rawValue, frames: frames,
                            startup: startup, gstreamer: gstreamerNote,
                            encoders: missingEncoders.isEmpty ? nil : "this FFmpeg has no encoder for \(missingEncoders.joined(separator: ", "))",
                            results: results, matrix: matrix)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(report)
        if let jsonFile { try data.write(to: URL(fileURLWithPath: jsonFile)) }
        if json {
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(report.text)
            if let jsonFile { print("JSON: \(jsonFile)") }
        }
    }

    static func parseSize(_ text: String) throws -> (Int, Int) {
        let parts = text.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] % 8 == 0, parts[1] % 4 == 0 else {
            throw ValidationError("--size \(text) is not WIDTHxHEIGHT with a width that is a multiple of 8 and a height of 4")
        }
        return (parts[0], parts[1])
    }
}

/// Time to first frame: the render context (EGL display and context, threads), then the first
/// grayscale frame through a new graph (shader compilation and first use), against the floor's
/// first frame (its shaders compiled) on the same context.
struct Startup: Codable {
    let contextMilliseconds: Double
    let firstFrameMilliseconds: Double
    let floorFirstFrameMilliseconds: Double

    static func measure(contextMilliseconds: Double, clip: SourceClip, on context: RenderContext) throws -> Startup {
        let input = RawDataInput()
        let gate = DeliveryGate()
        input --> Grayscale() --> (try gate.output())
        let source = clip.frames[0]
        let first = try milliseconds {
            try context.performAndWait { context in try input.process(source, in: context) }
            gate.wait()
        }
        let floorFirst = try context.performAndWait { _ in
            try milliseconds {
                let floor = try FloorPipeline(width: clip.width, height: clip.height, filter: .grayscale)
                var result = [UInt8](repeating: 0, count: floor.frameBytes)
                source.data.withUnsafeBytes { bytes in result.withUnsafeMutableBytes { floor.run(bytes, into: $0) } }
                floor.delete()
            }
        }
        return Startup(contextMilliseconds: contextMilliseconds, firstFrameMilliseconds: first,
                       floorFirstFrameMilliseconds: floorFirst)
    }
}

struct Report: Codable {
    /// The day of the run (UTC, YYYY-MM-DD).
    let date: String
    let machine: MachineDescription
    let renderer: String
    let platform: String
    let frames: Int
    let startup: Startup?
    /// Why GStreamer was not measured, when it was not.
    let gstreamer: String?
    /// The codecs the encoder comparison could not measure, when there were any.
    let encoders: String?
    let results: [PipelineResult]
    /// The filter x output x size matrix through the `elimage` binary, when it was measured.
    let matrix: Matrix?

    var text: String {
        var lines = ["ELImage benchmark on \(renderer), EGL \(platform), \(frames) frames per pipeline and size; ratio = framework p50 / floor p50 of the same run",
                     "\(date), \(machine.summary)"]
        let header = "pipeline".padding(toLength: 58, withPad: " ", startingAt: 0)
            + "size        p50 ms   p99 ms  ns/px   ratio  stages (median ms, fence-timed)"
        if !results.isEmpty { lines.append(header) }
        for result in results {
            let ratio = result.ratioToBare.map { String(format: "%6.2fx", $0) } ?? "       "
            let stages = (result.stages ?? [:]).sorted { $0.key < $1.key }
                .map { "\($0.key) " + String(format: "%.2f", $0.value) }.joined(separator: ", ")
            lines.append(result.name.padding(toLength: 58, withPad: " ", startingAt: 0)
                + result.size.padding(toLength: 12, withPad: " ", startingAt: 0)
                + String(format: "%7.2f  %7.2f  %5.1f  ", result.latency.p50, result.latency.p99, result.nanosecondsPerPixel)
                + ratio + "  " + [stages, result.note ?? ""].filter { !$0.isEmpty }.joined(separator: "; "))
        }
        if let startup {
            lines.append(String(format: "time to first frame: render context %.1f ms + first grayscale frame %.1f ms (shader compile); floor's first frame %.1f ms",
                                startup.contextMilliseconds, startup.firstFrameMilliseconds, startup.floorFirstFrameMilliseconds))
        }
        if let gstreamer { lines.append("GStreamer comparison: \(gstreamer)") }
        if let encoders { lines.append("encoder comparison: \(encoders)") }
        if let matrix {
            lines.append("")
            lines.append(MatrixCell.table(matrix.cells, frames: matrix.frames, shortFrames: matrix.shortFrames, repeats: matrix.repeats,
                                          outputs: matrix.outputs))
            lines.append(String(format: "matrix wall time: %.0f s", matrix.wallSeconds))
        }
        return lines.joined(separator: "\n")
    }
}

/// The matrix's settings and cells.
struct Matrix: Codable {
    /// Frames of the long and of the short runs.
    let frames: Int, shortFrames: Int
    let repeats: Int
    /// Where the outputs were written: the folder and its file system ("/dev/shm (tmpfs)").
    let outputs: String?
    let wallSeconds: Double
    let cells: [MatrixCell]
}

struct PipelineResult: Codable {
    let name: String
    let size: String
    let latency: LatencyStatistics
    /// p50 of this pipeline over p50 of its floor in the same run (absent for the floor rows).
    let ratioToBare: Double?
    /// Median per-stage times in ms, each stage ended by glFinish.
    var stages: [String: Double]?
    var note: String?

    init(name: String, size: String, latency: LatencyStatistics, ratioToBare: Double?,
         stages: [String: Double]? = nil, note: String? = nil) {
        self.name = name
        self.size = size
        self.latency = latency
        self.ratioToBare = ratioToBare
        self.stages = stages
        self.note = note
    }

    /// p50 per pixel, for comparing sizes.
    var nanosecondsPerPixel: Double {
        let parts = size.split(separator: "x").compactMap { Double($0) }
        guard parts.count == 2, parts[0] * parts[1] > 0 else { return 0 }
        return latency.p50 * 1e6 / (parts[0] * parts[1])
    }
}
