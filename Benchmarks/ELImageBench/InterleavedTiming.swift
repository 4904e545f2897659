import CGLES
import Dispatch
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

/// A timed step that sends `sources`' frames, one per call in turn, through `input`, and waits
/// until `gate` says the output handed the frame over (its readback runs on a worker thread).
func feeding(_ input: RawDataInput, _ sources: [PixelBuffer],
             until gate: DeliveryGate) -> @Sendable (isolated RenderContext) throws -> Void {
    let counter = Box(0)
    return { context in
        counter.value += 1
        try input.process(sources[counter.value % sources.count], in: context)
        gate.wait()
    }
}

/// Tells a timed step that a `YUVDataOutput` has handed its frame to the closure: the frame was
/// read back (on the output's worker thread), so the step's time covers the whole path, as the
/// floor's does.
final class DeliveryGate: Sendable {
    private let delivered = DispatchSemaphore(value: 0)

    /// Called by the output's closure.
    func signal() { delivered.signal() }
    /// Waits for the next frame handed over.
    func wait() { delivered.wait() }

    /// An I420 BT.709 `YUVDataOutput` that signals this gate with each frame it hands over.
    ///
    /// Its frames are read back as they come (`.drop`). With `.wait`, a software renderer's render
    /// thread holds each frame until later ones are packed or a poll on the render thread takes
    /// it, and a timed step waits for its frame on the render thread: it would wait forever. One
    /// frame is in flight at a time, so none is ever dropped.
    func output() throws -> YUVDataOutput {
        try YUVDataOutput(format: .i420, colorSpace: .bt709, whenQueueFull: .drop) { [self] _ in signal() }
    }
}
