/// A sink whose frames arrive as an async sequence of CPU pictures (`PixelBuffer`: RGBA, or
/// Y'CbCr planes converted on the GPU), each with its time, read back on a worker thread behind a
/// GL fence: the render thread never waits for the readback or for the consumer.
///
/// ```swift
/// let stream = try FrameStream(format: .rgba)
/// movie --> Beauty() --> stream
/// async let frames = stream.frames.reduce(0) { count, frame in count + 1 }   // frame.timestamp, frame.data
/// try await movie.run(on: context)
/// try await stream.finish()                  // the sequence ends after the last frame
/// print(try await frames)
/// ```
///
/// The sequence ends at the source's end of stream (or `finish()`), and throws the failure that
/// stopped the readback. One stream, one consumer. A consumer slower than the graph slows a file
/// source (`bufferSize` frames wait for it, then the worker waits, then the render thread): no
/// frame is lost. With `whenQueueFull: .drop` (live sources) frames the worker cannot take are
/// dropped and counted instead. A consumer that stops iterating lets the rest go by unread.
public final class FrameStream: ReadbackNode, Sendable {
    public let inputSlots = InputSlots(count: 1)
    package let readback: ReadbackSink
    private let channel: FrameChannel<PixelBuffer>

    /// - Parameters:
    ///   - format: `.rgba` (default), or a Y'CbCr format (i420, yv12, nv12, nv21, i422, i444, gray8).
    ///   - colorSpace: the matrix and range of Y'CbCr output; `nil`: each frame's own.
    ///   - chromaLocation: the chroma siting of subsampled output; `nil`: each frame's source's.
    ///   - chromaDownsampling: the chroma filter (`.matched` keeps a Y'CbCr source's chroma).
    ///   - bufferSize: frames read back and waiting for the consumer before the worker waits.
    ///   - whenQueueFull: what the render thread does when the worker's queue is full.
    public init(format: PixelFormat = .rgba, colorSpace: ColorSpace? = nil, chromaLocation: ChromaLocation? = nil,
                chromaDownsampling: ChromaDownsampling = .matched, bufferSize: Int = 4,
                whenQueueFull: QueueFullPolicy = .wait) throws {
        _ = try RenderContext.planeKinds(of: format)
        let channel = FrameChannel<PixelBuffer>(capacity: bufferSize)
        self.channel = channel
        readback = ReadbackSink(ReadbackSink.Configuration(
            path: "FrameStream", threadName: "frame-stream", format: format, colorSpace: colorSpace,
            chromaLocation: chromaLocation, chromaDownsampling: chromaDownsampling, capacity: 2,
            whenQueueFull: whenQueueFull), open: { _ in StreamFrameWriter(channel) },
            onEnd: { result, _ in
                if case let .failure(error) = result { channel.finish(throwing: error) } else { channel.finish() }
            })
    }

    /// The safety net for a stream released without `finish()` or `close()`: the worker lets what
    /// is queued go by and ends in the background (never waited for here).
    deinit {
        channel.cancel()
        readback.requestFinish()
    }

    /// The frames, in order, as the worker reads them back; iterate once.
    public var frames: Frames { Frames(elements: channel.elements) }

    /// Frames handed to the sequence so far.
    public var framesDelivered: Int { readback.written }
    /// Frames dropped (`.drop` or `.replaceOldest` with a full queue) or left behind by a failure.
    public var framesDropped: Int { readback.dropped }

    /// Ends the stream after the frames taken so far and returns once the consumer has been handed
    /// every one of them (so it waits for a consumer that is still iterating) and the worker has
    /// ended. Returns the frames delivered.
    /// - Throws: the failure that stopped the readback.
    @discardableResult
    public func finish() async throws -> Int {
        try await readback.finish()
    }

    /// Stops without waiting for the consumer: frames not yet handed over are dropped, the
    /// sequence ends, the worker is joined. Called by the context's `close()`.
    public func close() async {
        channel.cancel()
        readback.requestFinish()
        _ = await readback.outcome()
    }

    /// The frames of a `FrameStream`.
    public struct Frames: AsyncSequence, Sendable {
        let elements: FrameChannel<PixelBuffer>.Elements

        public func makeAsyncIterator() -> FrameIterator { FrameIterator(base: elements.makeAsyncIterator()) }

        public struct FrameIterator: AsyncIteratorProtocol {
            var base: FrameChannel<PixelBuffer>.Elements.ElementIterator

            public mutating func next() async throws -> PixelBuffer? { try await base.next() }
        }
    }
}

/// Sends each frame read back to a `FrameStream`'s consumer.
private final class StreamFrameWriter: FrameWriter {
    private let channel: FrameChannel<PixelBuffer>

    init(_ channel: FrameChannel<PixelBuffer>) { self.channel = channel }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        _ = channel.send(buffer)  // false: nobody listens; the frame goes unread
        return .more
    }

    func finish() throws {}
    func publish() throws {}
    func salvage(after error: ELImageError) {}
    func discard() {}
}
