import Dispatch
import ELImage

/// A sink for tests: reads every frame it receives back as RGBA (with its time), counts
/// end-of-stream, and can hold the render thread on chosen frames to play a slow consumer.
///
/// ```swift
/// let collector = FrameCollector()
/// camera --> collector
/// // ... run ...
/// #expect(collector.received.count == 10)
/// ```
public final class FrameCollector: ImageInput, Sendable {
    public let inputSlots = InputSlots()
    private let images = Locked<[RGBAImage]>([])
    private let ends = Locked(0)
    private let holding = Locked<Set<Int>>([])
    private let held = Locked(0)
    private let gate = DispatchSemaphore(value: 0)

    public init() {}

    /// The frames so far, read back as RGBA with their times, in the order they came.
    public var received: [RGBAImage] { images.withLock { $0 } }
    /// How many frames came so far.
    public var count: Int { images.withLock { $0.count } }
    /// How many times the end of the stream was announced.
    public var endOfStreamCount: Int { ends.withLock { $0 } }
    /// How many frames are being held on the render thread now.
    public var heldCount: Int { held.withLock { $0 } }

    /// Holds the render thread on the `index`-th received frame (0-based) until `release()`.
    public func hold(frameIndex index: Int) { holding.withLock { _ = $0.insert(index) } }

    /// Lets one held frame go on.
    public func release() { gate.signal() }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        var rgba = try PixelBuffer(format: .rgba, width: frame.width, height: frame.height)
        try context.readPixels(of: frame, into: &rgba)
        let position = images.withLock { list in
            list.append(RGBAImage(width: frame.width, height: frame.height, pixels: rgba.data,
                                  timestamp: frame.timestamp))
            return list.count - 1
        }
        if holding.withLock({ $0.contains(position) }) {
            held.withLock { $0 += 1 }
            gate.wait()
            held.withLock { $0 -= 1 }
        }
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        ends.withLock { $0 += 1 }
    }
}
