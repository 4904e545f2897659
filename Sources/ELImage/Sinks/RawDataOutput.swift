/// A sink that reads every frame back to the CPU as RGBA and hands it to a closure.
///
/// The frame is read back on a worker thread behind a GL fence (the path of the file sinks), so
/// the render thread never waits for the readback or the closure. The closure runs on that worker
/// thread, one frame at a time, in order. A file source waits while four frames are queued (no
/// frame is lost); `finish()` returns once the closure has seen every frame delivered so far.
///
/// ```swift
/// let output = RawDataOutput { image in print(image.timestamp, image[0, 0]) }
/// movie --> output
/// try await movie.run(on: context)
/// try await output.finish()
/// ```
///
/// For an async sequence of frames instead of a closure, use `FrameStream`.
public final class RawDataOutput: ImageInput, FinishableNode, Sendable, PlanDescribing {
    public let inputSlots = InputSlots(count: 1)
    private let runs: ReadbackRuns

    /// - Parameters:
    ///   - queueCapacity: frames waiting for the worker before `whenQueueFull` applies.
    ///   - whenQueueFull: `.wait` (default) slows a file source; `.drop` drops and counts (live).
    ///   - handler: called with each frame, in order, on the worker thread.
    public init(queueCapacity: Int = 4, whenQueueFull: QueueFullPolicy = .wait,
                handler: @escaping @Sendable (RGBAImage) -> Void) {
        runs = ReadbackRuns(ReadbackSink.Configuration(path: "RawDataOutput", threadName: "frames", format: .rgba,
                                                       capacity: max(1, queueCapacity), whenQueueFull: whenQueueFull)) {
            CallbackFrameWriter { buffer in
                handler(RGBAImage(width: buffer.width, height: buffer.height, pixels: buffer.data,
                                  timestamp: buffer.timestamp))
            }
        }
    }

    /// The safety net for an output released without `finish()` or `close()`: its worker hands over
    /// what is queued and ends in the background (never waited for here).
    deinit {
        runs.release()
    }

    /// Frames handed to the closure so far.
    public var framesDelivered: Int { runs.written }

    package var planSummary: String { runs.planSummary }
    /// Frames dropped (`.drop` with a full queue) or left behind by a failure.
    public var framesDropped: Int { runs.dropped }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard frame.format.holdsPicture else {
            throw ELImageError.invalidInput(what: "RawDataOutput got a \(frame.format) frame",
                                            hint: "connect it after a node that outputs RGBA")
        }
        try runs.take(frame, owner: self, in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        runs.endOfStream()
    }

    /// Waits until the closure has seen every frame taken so far and the worker has ended;
    /// returns the frames delivered in all. The output takes frames again afterwards.
    /// - Throws: the failure that stopped a readback (also a `.failed` event of the context).
    @discardableResult
    public func finish() async throws -> Int {
        try await runs.finish()
    }

    /// Stops: the frames still queued are dropped (counted in `framesDropped`), the worker is
    /// joined; takes no frames afterwards. (The render context's `close()` calls `finish()`.)
    public func close() async {
        await runs.close()
    }
}
