/// Counts the frames that reach it: a fan-out target beside a sink or on a source, for progress
/// and frame limits.
public final class FrameCounter: ImageInput, FrameObserver {
    public let inputSlots = InputSlots()
    private let frames = Locked(0)
    private let onFrame: (@Sendable (Int) -> Void)?

    /// - Parameter onFrame: called on the render thread with the count after each frame.
    public init(onFrame: (@Sendable (Int) -> Void)? = nil) {
        self.onFrame = onFrame
    }

    /// The frames received so far.
    public var count: Int { frames.withLock { $0 } }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        try observe(width: frame.width, height: frame.height, timestamp: frame.timestamp, in: context)
    }

    /// Hears of a picture without drawing it.
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        try observe(width: picture.width, height: picture.height, timestamp: picture.timestamp, in: context)
    }

    package func observe(width: Int, height: Int, timestamp: MediaTime, in context: isolated RenderContext) throws {
        let count = frames.withLock { value in
            value += 1
            return value
        }
        onFrame?(count)
    }
}
