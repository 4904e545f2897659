/// A sink that converts every frame to Y'CbCr (or RGBA) on the GPU and hands the `PixelBuffer` to
/// a closure: the feed for encoders, Y4M files and other YUV consumers.
///
/// The planes are packed on the render thread and read back behind a GL fence (the path of the
/// file sinks): on a worker thread, or on a software renderer by the render thread once the
/// frame is drawn (`ReadbackPlacement`); the render thread never waits for the GPU or the
/// closure. So code on the render thread must not wait for the closure either: with `.wait`, a
/// frame may be read only after later frames come. The closure runs on the output's worker
/// thread, one frame at a time, in order; the buffer is reused for the next frame unless the
/// closure keeps it (then the closure's copy is its own).
/// `finish()` returns once the closure has seen every frame delivered so far.
///
/// A sink of your own is this node with a `FrameWriter` of yours (`init(format:…makeWriter:)`):
/// one writer per stream, made at its first frame, fed on the worker thread; the node does the
/// packing (fused into the line before it where it can), the hand-off, back-pressure and counting.
public final class YUVDataOutput: ReadbackNode, FinishableNode, Sendable {
    public let inputSlots = InputSlots(count: 1)
    /// The format frames are read back in (i420, yv12, nv12, nv21, i422, i444, yuyv, uyvy, gray8 or rgba).
    public let format: PixelFormat
    package let readback: ReadbackRuns

    /// - Parameters:
    ///   - format: the Y'CbCr layout of each buffer (I420 by default).
    ///   - colorSpace: the matrix and range to write; `nil` uses each frame's own colour space.
    ///   - chromaLocation: where subsampled chroma is sited (MPEG-2 "left" by default, as H.264
    ///     expects); `nil` sites it as each frame's source did (`TextureFrame.chromaLocation`), so a
    ///     Y'CbCr source is written back without resampling its chroma to another siting.
    ///   - chromaDownsampling: the chroma filter of subsampled formats (`.matched`, the default,
    ///     writes Y'CbCr sources back with their chroma intact; `.average` blurs it slightly).
    ///   - queueCapacity: frames waiting for the worker before `whenQueueFull` applies.
    ///   - whenQueueFull: `.wait` (default) slows a file source; `.drop` drops and counts (live).
    ///   - handler: called with each frame, in order, on the worker thread.
    public convenience init(format: PixelFormat = .i420, colorSpace: ColorSpace? = nil, chromaLocation: ChromaLocation? = .left,
                            chromaDownsampling: ChromaDownsampling = .matched, queueCapacity: Int = 4,
                            whenQueueFull: QueueFullPolicy = .wait,
                            handler: @escaping @Sendable (PixelBuffer) -> Void) throws {
        try self.init(format: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                      chromaDownsampling: chromaDownsampling, queueCapacity: queueCapacity, whenQueueFull: whenQueueFull) {
            CallbackFrameWriter(handler)
        }
    }

    /// The same output writing with a `FrameWriter` of yours: `makeWriter` makes one for each
    /// stream, on the worker thread at the stream's first frame; it is fed there, in order, and
    /// finished at the stream's end. A frame is counted in `framesDelivered` once written.
    public init(format: PixelFormat = .i420, colorSpace: ColorSpace? = nil, chromaLocation: ChromaLocation? = .left,
                chromaDownsampling: ChromaDownsampling = .matched, queueCapacity: Int = 4,
                whenQueueFull: QueueFullPolicy = .wait,
                makeWriter: @escaping @Sendable () -> any FrameWriter) throws {
        _ = try RenderContext.planeKinds(of: format)
        self.format = format
        readback = ReadbackRuns(ReadbackSink.Configuration(
            path: "YUVDataOutput", threadName: "frames", format: format, colorSpace: colorSpace,
            chromaLocation: chromaLocation, chromaDownsampling: chromaDownsampling,
            capacity: max(1, queueCapacity), whenQueueFull: whenQueueFull), makeWriter: makeWriter)
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
