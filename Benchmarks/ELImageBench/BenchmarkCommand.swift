// elimage-bench: per-frame latency of ELImage pipelines next to bare GLES doing the same GL work,
// measured in one run, interleaved, after warm-up.
//
//     swift run -c release elimage-bench [--frames 300] [--size 1920x1080] [--json]
import ArgumentParser
import ELImage
import Foundation

@main
struct BenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "elimage-bench",
        abstract: "Per-frame latency of ELImage pipelines vs. bare GLES, p50/p90/p99 over many frames.")

    @Option(help: "Frames measured per pipeline (after warm-up).")
    var frames = 300

    @Option(help: "Frame sizes, e.g. 1920x1080 (repeatable).")
    var size: [String] = ["1920x1080"]

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    /// Which benchmarks run.
    enum Pipeline: String, ExpressibleByArgument, CaseIterable {
        case grayscale, filters, record, detection, all
    }

    @Option(help: "grayscale: the per-size pipelines; filters: the filter benchmark at 1280x720; record: VideoEncoder vs the x264 CLI at 1280x720; detection: beauty with and without a face and code detector branch at 1280x720; all (default).")
    var pipeline: Pipeline = .all

    func run() throws {
        let context = try RenderContext()
        // Every program closes its context before it ends: threads joined, EGL torn down.
        defer { _ = try? blocking { await context.close() } }
        var results: [PipelineResult] = []
        for text in [.grayscale, .all].contains(pipeline) ? size : [] {
            let parts = text.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
                throw ValidationError("--size \(text) is not WIDTHxHEIGHT")
            }
            results += try GrayscaleBenchmark(width: parts[0], height: parts[1], frames: frames).run(on: context)
            results += try YUVBenchmark(width: parts[0], height: parts[1], frames: frames).run(on: context)
        }
        if [.filters, .all].contains(pipeline) {
            results += try FilterBenchmark(width: 1280, height: 720, frames: frames).run(on: context)
        }
        if [.detection, .all].contains(pipeline) {
            results += try DetectionBenchmark(frames: frames).run(on: context)
        }
        if [.record, .all].contains(pipeline) {
            results += try RecordBenchmark(width: 1280, height: 720, frames: frames).run(on: context)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let report = Report(renderer: context.info.renderer, platform: context.info.platform.rawValue, results: results)
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("ELImage benchmark on \(context.info.renderer), EGL \(context.info.platform), \(frames) frames each")
            print(Report.table(results))
        }
    }
}

struct Report: Codable {
    let renderer: String
    let platform: String
    let results: [PipelineResult]

    static func table(_ results: [PipelineResult]) -> String {
        let header = "pipeline".padding(toLength: 52, withPad: " ", startingAt: 0) + "size        p50 ms   p90 ms   p99 ms   fps     framework/bare (p50)"
        let rows = results.map { result in
            let ratio = result.ratioToBare.map { String(format: "%.3f", $0) } ?? ""
            return result.name.padding(toLength: 52, withPad: " ", startingAt: 0)
                + result.size.padding(toLength: 12, withPad: " ", startingAt: 0)
                + String(format: "%7.2f  %7.2f  %7.2f  %6.1f  ", result.latency.p50, result.latency.p90,
                         result.latency.p99, result.latency.throughput)
                + ratio
        }
        return ([header] + rows).joined(separator: "\n")
    }
}

struct PipelineResult: Codable {
    let name: String
    let size: String
    let latency: LatencyStatistics
    /// p50 of this pipeline over p50 of its bare-GLES twin (absent for the bare rows).
    let ratioToBare: Double?
}
