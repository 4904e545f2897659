import ELImage

/// A pipeline that runs in memory, for tests of filters and graphs: images go in by hand, the
/// frames that come out are collected, and `finish()` ends the stream, closes everything and
/// reports what was left over. In the spirit of SwiftNIO's `EmbeddedChannel`.
///
/// ```swift
/// let pipeline = try EmbeddedPipeline { input in input --> Grayscale() }
/// let out = try await pipeline.send(image)
/// let leftovers = await pipeline.finish()
/// #expect(leftovers.isEmpty, "\(leftovers)")
/// ```
public final class EmbeddedPipeline: Sendable {
    /// The context the graph runs in; `finish()` closes it.
    public let context: RenderContext
    /// The head of the graph: `send` uploads through it.
    public let input = RawDataInput()
    /// Every frame that reached the end of the graph.
    public let output = FrameCollector()
    /// Every failure the graph's nodes reported.
    public let failures: FailureRecorder

    /// Makes a context and the graph `build` returns the tail of, given the input; the tail is
    /// connected to `output`. With no `build`, the input goes straight to the output.
    public init(context: RenderContext? = nil,
                _ build: (RawDataInput) throws -> ImageOutput = { $0 }) throws {
        self.context = try context ?? RenderContext()
        failures = FailureRecorder(self.context)
        try build(input) --> output
    }

    /// Sends one image through the graph and returns the frames that came out for it.
    @discardableResult
    public func send(_ image: RGBAImage) async throws -> [RGBAImage] {
        let before = output.count
        try await input.process(image.pixels, width: image.width, height: image.height,
                                format: .rgba, timestamp: image.timestamp, on: context)
        return Array(output.received.dropFirst(before))
    }

    /// Ends the stream, measures what is left over, then closes the context (joining every thread
    /// it started). Call it once, at the end of the test.
    public func finish() async -> Leftovers {
        let input = input
        try? await context.perform { context in input.finish(in: context) }
        let frames = (try? await context.perform { context in context.poolStatistics.texturesInUse }) ?? 0
        let threads = context.threads.names  // the nodes' threads; the render thread is not among them
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
