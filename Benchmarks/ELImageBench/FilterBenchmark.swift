import CGLES
import ELImage
import Synchronization

/// Filters at 1280x720 on an already uploaded frame: one 5x5 bilateral pass, the whole beauty
/// filter, and four colour filters (brightness → contrast → saturation → grayscale) as separate
/// nodes and fused into one `ColorChain` pass. Each timed frame is the node's `receive` followed by
/// `glFinish`, so the clock covers the GPU work, not its submission. Pipelines run in alternating
/// blocks of 10 frames after 10 warm-up frames each, on one context.
struct FilterBenchmark {
    let width: Int
    let height: Int
    let frames: Int

    private struct Pipeline {
        let name: String
        let entry: any ImageInput
        var times: [Double] = []
        var drawCalls = 0
    }

    func run(on context: RenderContext) throws -> [PipelineResult] {
        var generator = SystemRandomNumberGenerator()
        // Smooth gradients with noise, so that the frame has both flat areas and detail.
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                let noise = Int.random(in: -12...12, using: &generator)
                pixels[offset] = UInt8(clamping: x * 255 / width + noise)
                pixels[offset + 1] = UInt8(clamping: y * 255 / height + noise)
                pixels[offset + 2] = UInt8(clamping: 128 + noise)
            }
        }
        let grabber = FrameGrabber()
        let input = RawDataInput()
        input --> grabber
        try context.performAndWait { context in
            try pixels.withUnsafeBytes { bytes in
                try input.process(bytes, width: width, height: height, format: .rgba, timestamp: .zero, in: context)
            }
        }
        guard let frame = grabber.frame else { throw FilterBenchmarkFailure(description: "the upload produced no frame") }

        let drain = Drain()
        let bilateral = BilateralBlur(spatialSigma: 2, rangeSigma: 0.1)
        bilateral --> drain
        let beauty = Beauty()
        beauty --> drain
        let fused = ColorChain([Brightness(0.05), Contrast(1.2), Saturation(1.3), Grayscale()])
        fused --> drain
        let first = Brightness(0.05)
        first --> Contrast(1.2) --> Saturation(1.3) --> Grayscale() --> drain

        var pipelines = [
            Pipeline(name: "bilateral 5x5", entry: bilateral),
            Pipeline(name: "beauty", entry: beauty),
            Pipeline(name: "4 colour filters fused", entry: fused),
            Pipeline(name: "4 colour filters separate", entry: first),
        ]
        let warmUp = 10
        while pipelines[0].times.count < frames + warmUp {
            for index in pipelines.indices {
                let entry = pipelines[index].entry
                for _ in 0..<10 {
                    let before = try context.performAndWait { $0.drawCallCount }
                    pipelines[index].times.append(try milliseconds {
                        try context.performAndWait { context in
                            try entry.receive(frame, at: 0, in: context)
                            glFinish()
                        }
                    })
                    pipelines[index].drawCalls = try context.performAndWait { $0.drawCallCount } - before
                }
            }
        }

        let size = "\(width)x\(height)"
        let statistics = pipelines.map { LatencyStatistics(milliseconds: Array($0.times.dropFirst(warmUp))) }
        let rows: [(index: Int, reference: Int?, label: String)] = [
            (0, nil, ""), (1, 0, "bilateral"), (2, 3, "separate"), (3, nil, ""),
        ]
        return rows.map { row in
            let pipeline = pipelines[row.index], latency = statistics[row.index]
            var name = "\(pipeline.name), \(pipeline.drawCalls) draw\(pipeline.drawCalls == 1 ? "" : "s")"
            if let reference = row.reference {
                name += String(format: " (%.2fx %@)", latency.p50 / statistics[reference].p50, row.label)
            }
            return PipelineResult(name: name, size: size, latency: latency, ratioToBare: nil)
        }
    }
}

/// Keeps the first frame it receives.
private final class FrameGrabber: ImageInput, Sendable {
    let inputSlots = InputSlots()
    private let stored = Mutex<TextureFrame?>(nil)
    var frame: TextureFrame? { stored.withLock { $0 } }
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        stored.withLock { if $0 == nil { $0 = frame } }
    }
}

/// Drops every frame (the GPU work is waited for by the caller's glFinish).
private final class Drain: ImageInput, Sendable {
    let inputSlots = InputSlots()
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {}
}

private struct FilterBenchmarkFailure: Error, CustomStringConvertible { let description: String }
