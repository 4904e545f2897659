import CGLES
import ELImage

/// One canonical pipeline, I420 in and I420 out, through the framework (RawDataInput → filter →
/// YUVDataOutput, what `elimage run clip.y4m [--filter F] -o out.y4m` runs minus the file I/O)
/// next to the bare-GLES floor doing the least work for the same output, interleaved on the same
/// context, plus fence-timed stage times of both.
struct FloorComparison {
    /// What runs between the conversions.
    enum Pipeline: String, CaseIterable {
        /// I420 → RGBA → I420.
        case conversion
        /// I420 → RGBA → grayscale → I420, each node its own pass (fusion off).
        case grayscale
        /// The same graph as the framework runs it by default: one fused pass (conversion, grayscale,
        /// Y' pack; chroma cleared), against the unfused floor (conversion, grayscale and pack passes).
        case fusedGrayscale = "grayscale-fused"
        /// I420 → RGBA → Beauty (default settings) → I420, against the floor with one 5x5 bilateral pass.
        case beauty

        var floorFilter: FloorPipeline.Filter {
            switch self {
            case .conversion: .none
            case .grayscale, .fusedGrayscale: .grayscale
            case .beauty: .bilateral5
            }
        }

        func makeFilter() -> (any ImageInput & ImageOutput)? {
            switch self {
            case .conversion: nil
            case .grayscale, .fusedGrayscale: Grayscale()
            case .beauty: Beauty()
            }
        }
    }

    let pipeline: Pipeline
    let clip: SourceClip
    let frames: Int

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let (width, height) = (clip.width, clip.height)
        let sources = clip.frames
        let input = RawDataInput(fusingPasses: pipeline == .fusedGrayscale)
        let gate = DeliveryGate()
        let output = try gate.output()
        if let filter = pipeline.makeFilter() {
            input --> filter --> output
        } else {
            input --> output
        }
        let floor = try context.performAndWait { _ in
            Box(try FloorPipeline(width: width, height: height, filter: pipeline.floorFilter))
        }
        defer { _ = try? context.performAndWait { _ in floor.value.delete() } }
        let result = Box([UInt8](repeating: 0, count: floor.value.frameBytes))
        let counter = Box(0)
        let timing = try InterleavedTiming(frames: frames).measure(
            framework: feeding(input, sources, until: gate),
            bare: { _ in
                counter.value += 1
                sources[counter.value % sources.count].data.withUnsafeBytes { bytes in
                    result.value.withUnsafeMutableBytes { floor.value.run(bytes, into: $0) }
                }
            },
            on: context)
        let stages = try stageTimes(floor: floor, sources: sources, on: context)
        let size = clip.sizeName
        let name = "\(pipeline.rawValue) I420→I420"
        return [
            PipelineResult(name: name, size: size, latency: timing.framework, ratioToBare: timing.framework.p50 / timing.bare.p50,
                           stages: stages.framework),
            PipelineResult(name: "\(pipeline.rawValue), bare-GLES floor" + (pipeline == .fusedGrayscale ? " (unfused)" : ""), size: size, latency: timing.bare, ratioToBare: nil,
                           stages: stages.floor),
        ]
    }

    /// Median stage times over a few frames, each stage ended by glFinish. The framework's stages
    /// are its public steps: upload + conversion (`makeFrame(from:)`), the filter with the sink's
    /// packing and readback (what follows the conversion in the pipeline), and packing + readback
    /// of the unfiltered frame (`readPixels(of:into:)`).
    private func stageTimes(floor: Box<FloorPipeline>, sources: [PixelBuffer], on context: RenderContext) throws
        -> (framework: [String: Double], floor: [String: Double])
    {
        let count = min(20, max(5, frames / 3))
        let filter = pipeline.makeFilter()
        let gate = DeliveryGate()
        let capture = try gate.output()
        let filterInput = FrameFeeder()
        if let filter { filterInput --> filter --> capture }
        let fusedInput = RawDataInput(fusingPasses: true)
        if pipeline == .fusedGrayscale { fusedInput --> Grayscale() --> capture }
        let (width, height, filtered, hasFilterPass) = (clip.width, clip.height, filter != nil, pipeline != .conversion)
        let fused = pipeline == .fusedGrayscale
        return try context.performAndWait { context in
            var framework: [String: [Double]] = [:], bare: [String: [Double]] = [:]
            var output = try PixelBuffer(format: .i420, width: width, height: height, colorSpace: .bt709)
            var result = [UInt8](repeating: 0, count: floor.value.frameBytes)
            for index in 0..<count {
                let source = sources[index % sources.count]
                if fused {
                    framework["upload+fused pass+readback", default: []].append(try milliseconds {
                        try fusedInput.process(source, in: context); gate.wait()
                    })
                } else {
                    try timeSeparateStages(of: source, feeding: filtered ? filterInput : nil, until: gate, into: &output,
                                           stages: &framework, in: context)
                }
                source.data.withUnsafeBytes { bytes in
                    bare["upload", default: []].append(milliseconds { floor.value.upload(bytes); glFinish() })
                }
                bare["convert", default: []].append(milliseconds { floor.value.convert(); glFinish() })
                if hasFilterPass {
                    bare["filter", default: []].append(milliseconds { floor.value.applyFilter(); glFinish() })
                }
                bare["pack", default: []].append(milliseconds { floor.value.pack(); glFinish() })
                result.withUnsafeMutableBytes { bytes in
                    bare["readback", default: []].append(milliseconds { floor.value.read(into: bytes) })
                }
            }
            return (framework.mapValues { LatencyStatistics(milliseconds: $0).p50 },
                    bare.mapValues { LatencyStatistics(milliseconds: $0).p50 })
        }
    }

    /// The framework's separate stages for one frame: upload + conversion, the filter with the sink's
    /// packing and readback (when `filterInput` feeds a filter), packing + readback of the unfiltered frame.
    private func timeSeparateStages(of source: PixelBuffer, feeding filterInput: FrameFeeder?, until gate: DeliveryGate,
                                    into output: inout PixelBuffer,
                                    stages: inout [String: [Double]], in context: isolated RenderContext) throws {
        var frame: TextureFrame?
        stages["upload+convert", default: []].append(try milliseconds {
            frame = try context.makeFrame(from: source); glFinish()
        })
        guard let converted = frame else { return }
        if let filterInput {
            stages["filter+pack+readback", default: []].append(milliseconds {
                filterInput.feed(converted, in: context); gate.wait()
            })
        }
        stages["pack+readback", default: []].append(try milliseconds {
            try context.readPixels(of: converted, into: &output)
        })
    }
}

/// Hands an already converted frame to the nodes after it (for timing a filter on its own).
final class FrameFeeder: ImageOutput {
    let outputs = OutputTargets()

    func feed(_ frame: TextureFrame, in context: isolated RenderContext) {
        deliver(frame, in: context)
    }
}
