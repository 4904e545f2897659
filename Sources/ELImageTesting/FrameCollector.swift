import Dispatch
import ELImage

/// A sink for tests: reads every frame it receives back (RGBA unless told otherwise, with its
/// time), counts end-of-stream, lets a test wait for either, and can hold the render thread on
/// chosen frames to play a stuck consumer.
///
/// ```swift
/// let collector = FrameCollector()
/// camera --> collector
/// #expect(await collector.waitForFrames(10))
/// #expect(collector.received.count == 10)
/// ```
public final class FrameCollector: ImageInput, Sendable {
    private struct State: Sendable {
        var buffers: [PixelBuffer] = []
        var ends = 0
        var held = 0
    }

    public let inputSlots = InputSlots()
    /// The format frames are read back in.
    public let format: PixelFormat
    private let colorSpace: ColorSpace?
    private let state = Waitable(State())
    private let holding = Locked<Set<Int>>([])
    private let gate = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - format: what each frame is read back as: `.rgba` (the default), or a Y'CbCr format
    ///     (packed on the GPU as the framework's YUV readback does).
    ///   - colorSpace: the colour space of a Y'CbCr readback; nil keeps the frame's own.
    public init(format: PixelFormat = .rgba, colorSpace: ColorSpace? = nil) {
        self.format = format
        self.colorSpace = colorSpace
    }

    /// The frames so far, read back as RGBA with their times, in the order they came (empty when
    /// the collector reads back another format: see `buffers`).
    public var received: [RGBAImage] { Self.rgbaImages(buffers) }

    /// The RGBA buffers among `buffers`, as images with their times.
    static func rgbaImages(_ buffers: [PixelBuffer]) -> [RGBAImage] {
        buffers.compactMap { buffer in
            guard buffer.format == .rgba else { return nil }
            return RGBAImage(width: buffer.width, height: buffer.height, pixels: buffer.data, timestamp: buffer.timestamp)
        }
    }
    /// The frames so far as read back, in `format`, with their times and colour spaces.
    public var buffers: [PixelBuffer] { state.value.buffers }
    /// How many frames came so far.
    public var count: Int { state.value.buffers.count }
    /// How many times the end of the stream was announced.
    public var endOfStreamCount: Int { state.value.ends }
    /// How many frames are being held on the render thread now.
    public var heldCount: Int { state.value.held }

    /// Waits until `count` frames in all have come; false when `timeout` passed first.
    @discardableResult
    public func waitForFrames(_ count: Int, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await state.wait(timeout: timeout) { $0.buffers.count >= count }
    }

    /// Waits until a frame for which `matches` holds has come (as read back); false when
    /// `timeout` passed first.
    @discardableResult
    public func waitForFrame(timeout: Duration = Waitable<Int>.defaultTimeout,
                             where matches: @escaping @Sendable (PixelBuffer) -> Bool) async -> Bool {
        await state.wait(timeout: timeout) { $0.buffers.contains(where: matches) }
    }

    /// Waits until the end of the stream has been announced `count` times in all; false when
    /// `timeout` passed first.
    @discardableResult
    public func waitForEndOfStream(_ count: Int = 1, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await state.wait(timeout: timeout) { $0.ends >= count }
    }

    /// Holds the render thread on the `index`-th received frame (0-based) until `release()`.
    public func hold(frameIndex index: Int) { holding.withLock { _ = $0.insert(index) } }

    /// Waits until `count` frames are held on the render thread; false when `timeout` passed first.
    @discardableResult
    public func waitUntilHolding(_ count: Int = 1, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await state.wait(timeout: timeout) { $0.held >= count }
    }

    /// Lets one held frame go on.
    public func release() { gate.signal() }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        var buffer = try PixelBuffer(format: format, width: frame.width, height: frame.height,
                                     timestamp: frame.timestamp, colorSpace: colorSpace ?? frame.colorSpace)
        try context.readPixels(of: frame, into: &buffer)
        buffer.timestamp = frame.timestamp
        var position = 0
        state.update { state in
            state.buffers.append(buffer)
            position = state.buffers.count - 1
        }
        if holding.withLock({ $0.contains(position) }) {
            state.update { $0.held += 1 }
            gate.wait()
            state.update { $0.held -= 1 }
        }
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        state.update { $0.ends += 1 }
    }
}
