import CGLES
import ELImage

/// Times a framework pipeline and its bare-GLES twin per frame on the same context, in alternating
/// blocks of 10 frames after 10 warm-up frames each, so both see the same machine load. Each timed
/// frame ends with `glFinish`, so the clock covers the GPU work, not only its submission.
struct InterleavedTiming {
    let frames: Int

    func measure(
        framework: @escaping @Sendable (isolated RenderContext) throws -> Void,
        bare: @escaping @Sendable (isolated RenderContext) throws -> Void,
        on context: RenderContext
    ) throws -> (framework: LatencyStatistics, bare: LatencyStatistics) {
        var frameworkTimes: [Double] = [], bareTimes: [Double] = []
        let warmUp = 10
        while frameworkTimes.count < frames + warmUp {
            for _ in 0..<10 {
                frameworkTimes.append(try milliseconds { try context.performAndWait { try framework($0); glFinish() } })
            }
            for _ in 0..<10 {
                bareTimes.append(try milliseconds { try context.performAndWait { try bare($0); glFinish() } })
            }
        }
        return (LatencyStatistics(milliseconds: Array(frameworkTimes.dropFirst(warmUp))),
                LatencyStatistics(milliseconds: Array(bareTimes.dropFirst(warmUp))))
    }
}

/// Carries a render-thread value across `performAndWait`.
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A timed step that sends `sources`' frames, one per call in turn, through `input`.
func feeding(_ input: RawDataInput, _ sources: [PixelBuffer]) -> @Sendable (isolated RenderContext) throws -> Void {
    let counter = Box(0)
    return { context in
        counter.value += 1
        try input.process(sources[counter.value % sources.count], in: context)
    }
}
