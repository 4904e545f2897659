import ELImage

/// RawDataInput → Grayscale → RawDataOutput, end to end (upload, one pass, readback), against
/// `BareGrayscale`. The readback waits for the GPU, so a CPU clock around a whole frame is honest.
/// Both run per frame through `performAndWait`, in alternating blocks, on the same context.
struct GrayscaleBenchmark {
    let width: Int
    let height: Int
    let frames: Int

    func run(on context: RenderContext) throws -> [PipelineResult] {
        var generator = SystemRandomNumberGenerator()
        let pixels = (0..<(width * height * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let input = RawDataInput()
        input --> Grayscale() --> RawDataOutput { _ in }
        var result = [UInt8](repeating: 0, count: width * height * 4)
        let bare = try context.performAndWait { _ in Box(try BareGrayscale(width: width, height: height)) }

        var frameworkTimes: [Double] = [], bareTimes: [Double] = []
        let block = 10
        let warmUp = 10
        var frame: Int64 = 0
        while frameworkTimes.count < frames + warmUp {
            for _ in 0..<block {
                frame += 1
                let time = MediaTime(frame: frame, framesPerSecond: 30)
                frameworkTimes.append(try milliseconds {
                    try context.performAndWait { context in
                        try pixels.withUnsafeBytes { bytes in
                            try input.process(bytes, width: width, height: height, format: .rgba,
                                              timestamp: time, in: context)
                        }
                    }
                })
            }
            for _ in 0..<block {
                bareTimes.append(try milliseconds {
                    try context.performAndWait { _ in
                        pixels.withUnsafeBytes { bytes in
                            result.withUnsafeMutableBytes { bare.value.run(pixels: bytes, result: $0) }
                        }
                    }
                })
            }
        }
        try context.performAndWait { _ in bare.value.delete() }
        let framework = LatencyStatistics(milliseconds: Array(frameworkTimes.dropFirst(warmUp)))
        let bareStatistics = LatencyStatistics(milliseconds: Array(bareTimes.dropFirst(warmUp)))
        let size = "\(width)x\(height)"
        return [
            PipelineResult(name: "grayscale (RawDataInput→Grayscale→RawDataOutput)", size: size,
                           latency: framework, ratioToBare: framework.p50 / bareStatistics.p50),
            PipelineResult(name: "grayscale, bare GLES", size: size, latency: bareStatistics, ratioToBare: nil),
        ]
    }
}


