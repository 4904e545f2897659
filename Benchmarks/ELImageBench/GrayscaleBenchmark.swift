import ELImage

/// RawDataInput → Grayscale → RawDataOutput, end to end (upload, one pass, readback), against
/// `BareGrayscale` doing the same GL work with the same shaders.
struct GrayscaleBenchmark {
    let width: Int
    let height: Int
    let frames: Int

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let (width, height) = (self.width, self.height)
        var generator = SystemRandomNumberGenerator()
        let pixels = (0..<(width * height * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let input = RawDataInput()
        input --> Grayscale() --> RawDataOutput { _ in }
        let result = Box([UInt8](repeating: 0, count: width * height * 4))
        let bare = try context.performAndWait { _ in Box(try BareGrayscale(width: width, height: height)) }
        let timing = try InterleavedTiming(frames: frames).measure(
            framework: { context in
                try pixels.withUnsafeBytes { bytes in
                    try input.process(bytes, width: width, height: height, format: .rgba, timestamp: .zero, in: context)
                }
            },
            bare: { _ in
                pixels.withUnsafeBytes { bytes in
                    result.value.withUnsafeMutableBytes { bare.value.run(pixels: bytes, result: $0) }
                }
            },
            on: context)
        try context.performAndWait { _ in bare.value.delete() }
        let size = "\(width)x\(height)"
        return [
            PipelineResult(name: "grayscale (RawDataInput→Grayscale→RawDataOutput)", size: size,
                           latency: timing.framework, ratioToBare: timing.framework.p50 / timing.bare.p50),
            PipelineResult(name: "grayscale, bare GLES", size: size, latency: timing.bare, ratioToBare: nil),
        ]
    }
}
