import ELImage

/// A pipeline that runs in memory, for tests of filters, sinks and graphs: frames go in by hand
/// with their timestamps, the graph runs on the render thread before `send` returns, what comes
/// out is collected (read back as RGBA or any `PixelFormat`), failures are recorded instead of
/// printed, and `finish()` ends the stream, closes everything and reports what was left over. In
/// the spirit of SwiftNIO's `EmbeddedChannel`.
///
/// ```swift
/// let pipeline = try EmbeddedPipeline { input in input --> Grayscale() }
/// let out = try await pipeline.send(image)            // the frames that came out for it
/// let leftovers = await pipeline.finish()
/// #expect(leftovers.isEmpty, "\(leftovers)")
/// ```
///
/// A sink under test ends the graph instead of the collector:
///
/// ```swift
/// let pipeline = try EmbeddedPipeline(sink: RawDataOutput { image in ... })
/// ```
///
/// With a `ManualClock` (`EmbeddedPipeline(clock:)`), whatever reads the context's clock (real-time
/// pacing, stall timeouts) moves only when the test advances it.
public final class EmbeddedPipeline: Sendable {
    /// The context the graph runs in; `finish()` closes it.
    public let context: RenderContext
    /// The head of the graph: `send` uploads through it.
    public let input: RawDataInput
    /// Every frame that reached the end of the graph (nothing when the graph ends in a sink).
    public let output: FrameCollector
    /// Every failure the graph's nodes reported (it is the context's error handler: a handler set
    /// on the context after the pipeline was made replaces it).
    public let failures: FailureRecorder
    /// The node whose frames `output` collects (nil when the graph ends in a sink).
    private let tail: (any ImageOutput)?
    /// True once end-of-stream was sent and no frame since.
    private let streamEnded = Locked(false)

    /// Makes a context (on `clock`, the real one by default) and the graph `build` returns the tail
    /// of, given the input; the tail is connected to `output`, which reads each frame back as
    /// `format`. With no `build`, the input goes straight to the output.
    ///
    /// - Parameters:
    ///   - context: the context to run in instead of a new one.
    ///   - clock: the new context's clock (a `ManualClock` in tests of pacing and timeouts);
    ///     ignored with `context`, which has its own.
    ///   - format: what `output` reads frames back as.
    ///   - colorSpace: the colour space of a Y'CbCr readback; nil: each frame's own.
    ///   - fusingPasses: as `RawDataInput(fusingPasses:)`.
    ///   - build: makes the graph after the input and returns its tail.
    public init(context: RenderContext? = nil, clock: (any BlockingClock)? = nil, readingBackAs format: PixelFormat = .rgba,
                colorSpace: ColorSpace? = nil, fusingPasses: Bool = true,
                _ build: (RawDataInput) throws -> any ImageOutput = { $0 }) throws {
        self.context = try context ?? RenderContext(clock: clock ?? ContinuousClock())
        input = RawDataInput(fusingPasses: fusingPasses)
        output = FrameCollector(format: format, colorSpace: colorSpace)
        failures = FailureRecorder(self.context)
        let tail = try build(input)
        self.tail = tail
        tail --> output
    }

    /// Makes a context and a graph that ends in `sink`, the node under test: `build` returns the
    /// node before it, given the input (by default the input itself). `output` collects nothing.
    ///
    /// - Parameters:
    ///   - context: the context to run in instead of a new one.
    ///   - clock: the new context's clock; ignored with `context`.
    ///   - fusingPasses: as `RawDataInput(fusingPasses:)`.
    ///   - sink: the node under test, where the graph ends.
    ///   - build: makes the graph between the input and the sink and returns its tail.
    public init(context: RenderContext? = nil, clock: (any BlockingClock)? = nil, fusingPasses: Bool = true,
                sink: some ImageInput, _ build: (RawDataInput) throws -> any ImageOutput = { $0 }) throws {
        self.context = try context ?? RenderContext(clock: clock ?? ContinuousClock())
        input = RawDataInput(fusingPasses: fusingPasses)
        output = FrameCollector()
        failures = FailureRecorder(self.context)
        tail = nil
        try build(input) --> sink
    }

    // MARK: Frames in

    /// Sends one RGBA image (with its timestamp) through the graph and returns the frames that
    /// came out for it, as RGBA (none when `output` reads back another format: see `send(_:)` of a
    /// `PixelBuffer`).
    @discardableResult
    public func send(_ image: RGBAImage) async throws -> [RGBAImage] {
        try await send(image, via: input)
    }

    /// Sends one image through another source of the graph (a second input of a blend) and
    /// returns the frames that came out for it.
    @discardableResult
    public func send(_ image: RGBAImage, via source: RawDataInput) async throws -> [RGBAImage] {
        let before = output.count
        streamEnded.withLock { $0 = false }
        try await source.process(image.pixels, width: image.width, height: image.height,
                                 format: .rgba, timestamp: image.timestamp, on: context)
        return FrameCollector.rgbaImages(Array(output.buffers.dropFirst(before)))
    }

    /// Sends images one after another and returns every frame that came out, in order.
    @discardableResult
    public func send(_ images: some Sequence<RGBAImage>) async throws -> [RGBAImage] {
        var out: [RGBAImage] = []
        for image in images { out += try await send(image) }
        return out
    }

    /// Sends a picture in any `PixelFormat` (Y'CbCr planes converted with its colour space; its
    /// timestamp kept), as a file or camera source would, and returns the frames that came out
    /// for it as read back.
    @discardableResult
    public func send(_ buffer: PixelBuffer, orientation: Orientation = .up) async throws -> [PixelBuffer] {
        let before = output.count
        streamEnded.withLock { $0 = false }
        try await input.process(buffer, orientation: orientation, on: context)
        return Array(output.buffers.dropFirst(before))
    }

    /// Sends one image and returns the frame that came out for it.
    /// - Throws: `ELImageError.invalidState` when none came out.
    public func render(_ image: RGBAImage) async throws -> RGBAImage {
        guard let frame = try await send(image).first else {
            throw ELImageError.invalidState(node: "EmbeddedPipeline",
                                            reason: "the graph made no frame for the image at \(image.timestamp): \(failures.all)")
        }
        return frame
    }

    /// Announces the end of the stream and returns the frames that came out with it (a node that
    /// held frames back lets them go).
    @discardableResult
    public func sendEndOfStream() async throws -> [PixelBuffer] {
        let before = output.count
        let input = input
        try await context.perform { context in input.finish(in: context) }
        streamEnded.withLock { $0 = true }
        return Array(output.buffers.dropFirst(before))
    }

    // MARK: The end

    /// Takes the pipeline's input and output off the graph, so that its nodes can be used in
    /// another pipeline; the context stays open. `finish()` does this too.
    public func disconnect() {
        input.removeAllTargets()
        tail?.removeTarget(output)
    }

    /// Ends the stream (unless `sendEndOfStream()` already did, with no frame since), measures what
    /// is left over, takes the input and output off the graph and closes the context, joining
    /// every thread it started. Call it once, at the end of the test.
    public func finish() async -> Leftovers {
        if !streamEnded.withLock({ $0 }) { _ = try? await sendEndOfStream() }
        let frames = (try? await context.perform { context in context.poolStatistics.texturesInUse }) ?? 0
        let threads = context.threads.names  // the nodes' threads; the render thread is not among them
        disconnect()
        await context.close()
        return Leftovers(framesInUse: frames, threadsRunning: threads,
                         threadsAfterClose: context.runningThreadNames,
                         failures: failures.all.map(\.description))
    }

    /// What a pipeline left behind at `finish()`.
    public struct Leftovers: Sendable, Equatable, CustomStringConvertible {
        /// Pooled textures (frames) still held by a node after the end of the stream.
        public var framesInUse: Int
        /// Framework threads (other than the render thread) still running after the end of the stream.
        public var threadsRunning: [String]
        /// Threads still alive once the context was closed (always a bug).
        public var threadsAfterClose: [String]
        /// Failures the nodes reported while the pipeline ran.
        public var failures: [String]

        /// True when nothing was left over.
        public var isEmpty: Bool {
            framesInUse == 0 && threadsRunning.isEmpty && threadsAfterClose.isEmpty && failures.isEmpty
        }

        public var description: String {
            isEmpty ? "nothing left over"
                : "frames in use \(framesInUse), threads running \(threadsRunning), "
                + "threads after close \(threadsAfterClose), failures \(failures)"
        }
    }
}
