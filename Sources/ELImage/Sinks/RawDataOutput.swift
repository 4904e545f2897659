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
public final class RawDataOutput: ReadbackNode, FinishableNode, Sendable {
    public let inputSlots = InputSlots(count: 1)
    package let readback: ReadbackRuns

    /// - Parameters:
    ///   - queueCapacity: frames waiting for the worker before `whenQueueFull` applies.
    ///   - whenQueueFull: `.wait` (default) slows a file source; `.drop` drops and counts (live).
    ///   - handler: called with each frame, in order, on the worker thread.
    public init(queueCapacity: Int = 4, whenQueueFull: QueueFullPolicy = .wait,
                handler: @escaping @Sendable (RGBAImage) -> Void) {
        readback = ReadbackRuns(ReadbackSink.Configuration(path: "RawDataOutput", threadName: "frames", format: .rgba,
                                                           capacity: max(1, queueCapacity), whenQueueFull: whenQueueFull,
                                                           picturesOnly: true)) {
            CallbackFrameWriter { buffer in
                handler(RGBAImage(width: buffer.width, height: buffer.height, pixels: buffer.data,
                                  timestamp: buffer.timestamp))
            }
        }
    }

    /// The safety net for an output released without `finish()` or `close()`: its worker hands over
    /// what is queued and ends in the background (never waited for here).
    deinit {
        readback.release()
    }

    /// Frames handed to the closure (or writer) so far, over every stream.
    public var framesDelivered: Int { readback.written }
    /// Frames dropped (`.drop` with a full queue) or left behind by a failure.
    public var framesDropped: Int { readback.dropped }
}
