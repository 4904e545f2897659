// The Y4M file pipeline (I420 source → Grayscale → FileOutput.y4m, what `elimage run clip.y4m
// --filter grayscale -o out.y4m` runs minus the decode) next to its floor: the bare-GLES floor
// (FloorPipeline, grayscale) and the file write in sequence, in one run, alternating.

import ELImage
import ELImageMedia
import Foundation

/// End-to-end ms/frame of the Y4M file pipeline (from the first frame in until the file is
/// complete), fused and with fusion off, against the floor then `write(2)` of each frame; the
/// better of two alternating runs each.
struct Y4MFileBenchmark {
    let clip: SourceClip
    let frames: Int

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("elimage-bench-y4m-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var framework: [Bool: [Double]] = [:], floor: [Double] = []
        for round in 0..<2 {
            for fusing in [true, false] {
                let path = folder.appendingPathComponent("out\(round)-\(fusing).y4m").path
                framework[fusing, default: []].append(try writeWithFramework(to: path, fusing: fusing, on: context))
            }
            floor.append(try writeWithFloor(to: folder.appendingPathComponent("floor\(round).y4m").path, on: context))
        }
        let floorBest = floor.min() ?? 0
        func constant(_ value: Double) -> LatencyStatistics {
            LatencyStatistics(milliseconds: Array(repeating: value, count: frames))
        }
        return [true, false].map { fusing in
            let best = framework[fusing]?.min() ?? 0
            return PipelineResult(name: "y4m I420→Gray→FileOutput.y4m, end to end" + (fusing ? ", fused" : ", fusion off"),
                                  size: clip.sizeName, latency: constant(best), ratioToBare: best / floorBest)
        } + [PipelineResult(name: "y4m, floor then write(2) in sequence", size: clip.sizeName,
                            latency: constant(floorBest), ratioToBare: nil)]
    }

    /// ms/frame from the first frame until the file is complete.
    private func writeWithFramework(to path: String, fusing: Bool, on context: RenderContext) throws -> Double {
        let output = try FileOutput.y4m(path: path, frameRate: 25, colorSpace: .bt709)
        let input = RawDataInput(fusingPasses: fusing)
        input --> Grayscale() --> output
        let start = ContinuousClock.now
        for index in 0..<frames {
            let buffer = clip.frame(index)
            try context.performAndWait { context in try input.process(buffer, in: context) }
        }
        let written = try blocking { try await output.finish() }
        guard written == frames else { throw BenchmarkFailure("FileOutput.y4m wrote \(written) of \(frames) frames") }
        return elapsedMilliseconds(ContinuousClock.now - start) / Double(frames)
    }

    /// ms/frame of the floor and the file write in sequence on the render thread.
    private func writeWithFloor(to path: String, on context: RenderContext) throws -> Double {
        let (width, height, frames, clip) = (clip.width, clip.height, frames, clip)
        return try context.performAndWait { _ in
            let floor = try FloorPipeline(width: width, height: height, filter: .grayscale)
            defer { floor.delete() }
            guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
                throw BenchmarkFailure("cannot create \(path)")
            }
            defer { try? file.close() }
            var result = [UInt8](repeating: 0, count: floor.frameBytes)
            let start = ContinuousClock.now
            try file.write(contentsOf: Data("YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420mpeg2\n".utf8))
            for index in 0..<frames {
                clip.frames[index % clip.frames.count].data.withUnsafeBytes { bytes in
                    result.withUnsafeMutableBytes { floor.run(bytes, into: $0) }
                }
                try file.write(contentsOf: Data("FRAME\n".utf8))
                try file.write(contentsOf: result)
            }
            return elapsedMilliseconds(ContinuousClock.now - start) / Double(frames)
        }
    }
}
