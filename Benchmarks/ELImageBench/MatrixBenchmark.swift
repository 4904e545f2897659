// The matrix: every filter of `elimage`'s catalogue x output kind (Y4M, MP4, raw RGBA) x size,
// through the real `elimage run` binary end to end, next to the bare-GLES floor doing the least GL
// work for the same output, measured in the same run, alternating.

import ELImage
import Foundation

/// Per-frame cost of `elimage run clip.y4m --filter F -o out.{y4m,mp4,rgba}` with start-up removed:
/// whole runs of N and of M frames, (t(N) − t(M)) / (N − M) ms a frame, once per repeat; each repeat
/// also times the floor (upload, conversion, the mapped filter, I420 pack or RGBA readback, then
/// write(2) of the frame or libx264) over N frames in this process, between the two runs.
struct MatrixBenchmark {
    /// What `-o` writes, chosen by the extension.
    enum Output: String, CaseIterable {
        case y4m, mp4, rgba

        var label: String { rawValue.uppercased() }
    }

    /// The floor of a catalogue filter: the pass that does the least GL work for the same output,
    /// and why when the match is not exact.
    struct FloorChoice {
        let filter: FloorPipeline.Filter
        let note: String?
    }

    let elimage: String
    let sizes: [(Int, Int)]
    /// Filters to run (nil: the whole catalogue).
    let filters: [String]?
    /// Frames of the long and of the short run.
    let frames: Int, shortFrames: Int
    let repeats: Int
    let folder: URL
    let preset = "veryfast"
    let crf: Float = 23

    /// The floor for each catalogue filter (by name); unknown names get `none`, said in the note.
    static func floor(for filter: String) -> FloorChoice {
        switch filter {
        case "brightness", "contrast", "saturation", "exposure", "gamma", "hue", "whitebalance", "levels",
             "colormatrix", "matrix", "lut", "lookup":
            FloorChoice(filter: .none, note: nil)
        case "grayscale": FloorChoice(filter: .grayscale, note: nil)
        case "blur": FloorChoice(filter: .gauss13, note: nil)
        case "bilateral", "beauty": FloorChoice(filter: .bilateral5, note: nil)
        case "boxblur": FloorChoice(filter: .gauss13, note: "nearest: separable, two passes (5 taps at radius 2)")
        case "sharpen": FloorChoice(filter: .grayscale, note: "nearest: one extra pass (3x3 taps)")
        case "sobel": FloorChoice(filter: .grayscale, note: "nearest: one extra pass (3x3 taps)")
        case "crop": FloorChoice(filter: .none, note: "default: the whole picture, same output as none")
        case "scale": FloorChoice(filter: .none, note: "default: the input's size, same output as none")
        case "reshape": FloorChoice(filter: .none, note: "nearest: none (one warp pass; the landmark networks run on a worker beside it)")
        case "backgroundblur": FloorChoice(filter: .gauss13, note: "nearest: a separable blur (at 1/4 size, with the mask refined; the segmentation network runs on every frame, the render thread waiting for it)")
        case "backgroundreplace", "personmask":
            FloorChoice(filter: .none, note: "nearest: none (the mask refined and composited; the segmentation network runs on every frame, the render thread waiting for it)")
        default: FloorChoice(filter: .none, note: "not mapped: compared with none")
        }
    }

    static func floorName(_ filter: FloorPipeline.Filter, _ output: Output) -> String {
        let pass = filter == .grayscale ? "gray" : filter.rawValue
        switch output {
        case .y4m: return "\(pass) + write"
        case .mp4: return "\(pass) + x264 veryfast"
        case .rgba: return "\(pass) RGBA + write"
        }
    }

    /// The catalogue as `elimage filters` lists it: the names that start its unindented lines.
    static func catalogue(elimage: String) throws -> [String] {
        let listing = try runElimage(elimage, ["filters"], capturing: true)
        let names = listing.split(separator: "\n").compactMap { line -> String? in
            guard let first = line.first, !first.isWhitespace else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
        guard !names.isEmpty else { throw BenchmarkFailure("`\(elimage) filters` listed no filter:\n\(listing)") }
        return names
    }

    /// `elimage` next to this program in the same build folder.
    static func defaultElimagePath() -> String {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("elimage").path
    }

    /// The filters to run, checked against the catalogue of the `elimage` binary (which must be
    /// there); call before anything long so that a wrong name or a missing binary fails at once.
    func chosenFilters() throws -> [String] {
        guard FileManager.default.isExecutableFile(atPath: elimage) else {
            throw BenchmarkFailure("no elimage binary at \(elimage): build it first (swift build -c release --product elimage) or pass --elimage PATH")
        }
        guard frames > shortFrames, shortFrames > 0 else {
            throw BenchmarkFailure("the matrix needs more frames (\(frames)) than its short run (\(shortFrames)), which needs at least 1")
        }
        let catalogue = try Self.catalogue(elimage: elimage)
        return try filters.map { wanted in
            try wanted.map { name in
                guard catalogue.contains(name) else {
                    throw BenchmarkFailure("--matrix-filter \(name): not in elimage's catalogue (\(catalogue.joined(separator: ", ")))")
                }
                return name
            }
        } ?? catalogue
    }

    /// Measures every cell of `chosen` (from `chosenFilters()`) x output x size, saying each on stderr.
    func run(_ chosen: [String], on context: RenderContext) throws -> [MatrixCell] {
        let total = sizes.count * chosen.count * Output.allCases.count
        let started = ContinuousClock.now
        var cells: [MatrixCell] = []
        for (width, height) in sizes {
            let clip = try SourceClip(width: width, height: height, frameCount: frames, folder: folder)
            for filter in chosen {
                for output in Output.allCases {
                    let cell = try measure(filter: filter, output: output, clip: clip, on: context)
                    cells.append(cell)
                    let elapsed = elapsedMilliseconds(ContinuousClock.now - started) / 1000
                    FileHandle.standardError.write(Data(String(
                        format: "matrix %d/%d %@ %@ %@: %.2f ms/frame, floor %@ %.2f ms, %.2fx (%.0f s so far)\n",
                        cells.count, total, filter, output.label, clip.sizeName, cell.framework.latency.p50,
                        cell.floor.name, cell.floor.latency.p50, cell.framework.ratioToBare ?? 0, elapsed).utf8))
                }
            }
        }
        return cells
    }

    private func measure(filter: String, output: Output, clip: SourceClip, on context: RenderContext) throws -> MatrixCell {
        let choice = Self.floor(for: filter)
        let outputPath = folder.appendingPathComponent("matrix-out.\(output.rawValue)").path
        let floorPath = folder.appendingPathComponent("matrix-floor.\(output.rawValue)").path
        var arguments = ["run", clip.path, "--filter", filter, "-y", "-o", outputPath]
        if output == .mp4 { arguments += ["--preset", preset] }
        if filter == "backgroundreplace" { arguments += ["--background", try backgroundPicture()] }
        var estimates: [Double] = [], floorTimes: [Double] = []
        var long: [Double] = [], short: [Double] = []
        for _ in 0..<repeats {
            let timeLong = try timedRun(arguments + ["--frames", "\(frames)"], expecting: frames, output: output, outputPath, clip)
            floorTimes.append(try floorRun(choice.filter, output: output, path: floorPath, clip: clip, on: context))
            let timeShort = try timedRun(arguments + ["--frames", "\(shortFrames)"], expecting: shortFrames, output: output, outputPath, clip)
            long.append(timeLong)
            short.append(timeShort)
            estimates.append((timeLong - timeShort) / Double(frames - shortFrames))
        }
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: floorPath)
        let framework = LatencyStatistics(milliseconds: estimates)
        let floor = LatencyStatistics(milliseconds: floorTimes)
        let runs = String(format: "runs of %d frames %@ ms, of %d %@ ms", frames,
                          long.map { String(format: "%.0f", $0) }.joined(separator: "/"), shortFrames,
                          short.map { String(format: "%.0f", $0) }.joined(separator: "/"))
        return MatrixCell(
            filter: filter, output: output.label, floorNote: choice.note,
            framework: PipelineResult(name: "elimage run --filter \(filter) -o .\(output.rawValue)", size: clip.sizeName,
                                      latency: framework, ratioToBare: framework.p50 / floor.p50, note: runs),
            floor: PipelineResult(name: Self.floorName(choice.filter, output), size: clip.sizeName, latency: floor,
                                  ratioToBare: nil))
    }

    /// The picture backgroundreplace puts behind the people (FFmpeg's test pattern, made once).
    private func backgroundPicture() throws -> String {
        let path = folder.appendingPathComponent("background.png").path
        if !FileManager.default.fileExists(atPath: path) {
            try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720", "-frames:v", "1", path])
        }
        return path
    }

    /// Wall time in ms of one `elimage` run, start to exit; checks the output's size.
    private func timedRun(_ arguments: [String], expecting count: Int, output: Output, _ path: String,
                          _ clip: SourceClip) throws -> Double {
        try? FileManager.default.removeItem(atPath: path)
        let start = ContinuousClock.now
        _ = try Self.runElimage(elimage, arguments, capturing: false)
        let elapsed = elapsedMilliseconds(ContinuousClock.now - start)
        let bytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        let expected = switch output {
        case .rgba: count * clip.width * clip.height * 4
        case .y4m: count * (clip.width * clip.height * 3 / 2 + 6)
        case .mp4: 1
        }
        guard bytes >= expected else {
            throw BenchmarkFailure("elimage \(arguments.joined(separator: " ")) wrote \(bytes) bytes, expected at least \(expected)")
        }
        return elapsed
    }

    /// ms/frame of the floor over `frames` frames on the render thread, after two warm-up frames:
    /// the GL work, then the frame written with write(2) (Y4M, RGBA; the file synchronised at the
    /// end, as elimage's are) or encoded by libx264 (MP4, flushed at the end).
    private func floorRun(_ filter: FloorPipeline.Filter, output: Output, path: String, clip: SourceClip,
                          on context: RenderContext) throws -> Double {
        let (frames, preset, crf) = (frames, preset, crf)
        return try context.performAndWait { _ in
            let floor = try FloorPipeline(width: clip.width, height: clip.height, filter: filter)
            defer { floor.delete() }
            var result = [UInt8](repeating: 0, count: output == .rgba ? floor.rgbaBytes : floor.frameBytes)
            for index in 0..<2 {
                clip.frames[index % clip.frames.count].data.withUnsafeBytes { bytes in
                    result.withUnsafeMutableBytes { output == .rgba ? floor.runRGBA(bytes, into: $0) : floor.run(bytes, into: $0) }
                }
            }
            switch output {
            case .mp4:
                return try floor.msPerFrameWithX264(clip: clip, frames: frames, preset: preset, crf: crf)
            case .y4m, .rgba:
                guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
                    throw BenchmarkFailure("cannot create \(path)")
                }
                defer { try? file.close() }
                let start = ContinuousClock.now
                if output == .y4m {
                    try file.write(contentsOf: Data("YUV4MPEG2 W\(clip.width) H\(clip.height) F25:1 Ip A1:1 C420mpeg2\n".utf8))
                }
                for index in 0..<frames {
                    clip.frames[index % clip.frames.count].data.withUnsafeBytes { bytes in
                        result.withUnsafeMutableBytes { output == .rgba ? floor.runRGBA(bytes, into: $0) : floor.run(bytes, into: $0) }
                    }
                    if output == .y4m { try file.write(contentsOf: Data("FRAME\n".utf8)) }
                    try file.write(contentsOf: result)
                }
                // Made durable before it counts as written, as elimage makes its outputs.
                try file.synchronize()
                return elapsedMilliseconds(ContinuousClock.now - start) / Double(frames)
            }
        }
    }

    /// Runs `elimage` with `arguments`; its standard output when `capturing`, else dropped. Throws
    /// with its standard error when it fails.
    @discardableResult
    static func runElimage(_ elimage: String, _ arguments: [String], capturing: Bool) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: elimage)
        process.arguments = arguments
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("elimage-bench-stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil),
              let errorFile = FileHandle(forWritingAtPath: errors.path) else {
            throw BenchmarkFailure("cannot create \(errors.path) for elimage's messages")
        }
        defer { try? FileManager.default.removeItem(at: errors) }
        let pipe = Pipe()
        process.standardOutput = capturing ? pipe : FileHandle.nullDevice
        process.standardError = errorFile
        process.standardInput = FileHandle.nullDevice
        // Foundation's waitUntilExit polls every 50 ms on Linux, which quantised each run's time
        // (5 ms a frame over a 10-frame difference); the termination handler comes at the exit.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw BenchmarkFailure("cannot start \(elimage): \(error)")
        }
        let output = capturing ? pipe.fileHandleForReading.readDataToEndOfFile() : Data()
        exited.wait()
        // Closed here: Foundation never releases a Process given a termination handler, nor the
        // files it holds.
        try? errorFile.close()
        try? pipe.fileHandleForReading.close()
        guard process.terminationStatus == 0, process.terminationReason == .exit else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw BenchmarkFailure("elimage \(arguments.joined(separator: " ")) failed with status \(process.terminationStatus): \(message)")
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// One cell of the matrix: the framework's ms/frame (p50 over the repeats' estimates; ratio to the
/// floor's p50) and the floor's, both from the same run. Their `latency` statistics are over the
/// repeats (one estimate each: (t(N) − t(M)) / (N − M), or the floor's N-frame mean), not frames;
/// with two repeats the p50 is the slower of the two.
struct MatrixCell: Codable {
    let filter: String
    let output: String
    /// Why this floor, when it is not an exact match for the filter.
    let floorNote: String?
    let framework: PipelineResult
    let floor: PipelineResult

    /// The table printed after the pipelines'.
    static func table(_ cells: [MatrixCell], frames: Int, shortFrames: Int, repeats: Int, outputs: String?) -> String {
        var lines = ["matrix: elimage run end to end, ms/frame = (t(\(frames) frames) − t(\(shortFrames))) / \(frames - shortFrames), p50 of \(repeats) repeats; floor in the same run, interleaved"
                     + (outputs.map { "; outputs written to \($0)" } ?? "")]
        // The filter column fits the longest name ("backgroundreplace") and a space.
        let filterWidth = max(14, (cells.map(\.filter.count).max() ?? 0) + 2)
        lines.append("filter".padding(toLength: filterWidth, withPad: " ", startingAt: 0)
                     + "output  size        ms/frame  floor                        floor ms   ratio  note")
        for cell in cells {
            lines.append(cell.filter.padding(toLength: filterWidth, withPad: " ", startingAt: 0)
                + cell.output.padding(toLength: 8, withPad: " ", startingAt: 0)
                + cell.framework.size.padding(toLength: 12, withPad: " ", startingAt: 0)
                + String(format: "%8.2f  ", cell.framework.latency.p50)
                + cell.floor.name.padding(toLength: 27, withPad: " ", startingAt: 0)
                + String(format: "%9.2f  %6.2fx  ", cell.floor.latency.p50, cell.framework.ratioToBare ?? 0)
                + (cell.floorNote ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
