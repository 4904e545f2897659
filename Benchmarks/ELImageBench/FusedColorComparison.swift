import ELImage

/// A colour chain (brightness → contrast → saturation, one `FilterGroup`), I420 in and out, as the
/// framework fuses it across the graph (Y' pass + chroma pass straight from the planes) against the
/// same graph with fusion off (conversion, one chain pass, pack), interleaved on the same context:
/// what graph fusion gains, or costs, on colour output.
struct FusedColorComparison {
    let clip: SourceClip
    let frames: Int

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let sources = clip.frames
        let fused = RawDataInput(), separate = RawDataInput(fusingPasses: false)
        let gates = [DeliveryGate(), DeliveryGate()]
        for (input, gate) in zip([fused, separate], gates) {
            let chain = try FilterGroup([Brightness(0.05), Contrast(1.2), Saturation(1.3)])
            let output = try gate.output()
            input --> chain --> output
        }
        let timing = try InterleavedTiming(frames: frames).measure(framework: feeding(fused, sources, until: gates[0]),
                                                                   bare: feeding(separate, sources, until: gates[1]),
                                                                   on: context)
        return [
            PipelineResult(name: "colour chain (3 filters) fused I420→I420", size: clip.sizeName, latency: timing.framework,
                           ratioToBare: timing.framework.p50 / timing.bare.p50, note: "ratio to the unfused framework"),
            PipelineResult(name: "colour chain (3 filters), fusion off", size: clip.sizeName, latency: timing.bare, ratioToBare: nil),
        ]
    }
}
