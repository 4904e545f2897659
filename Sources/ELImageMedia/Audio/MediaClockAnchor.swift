import ELImage

/// Anchors a `MediaClock` at the first frame that reaches it: that frame's timestamp is "now" on
/// the monotonic clock. Put it right after a live source (a camera, a file paced in real time),
/// so sound captured meanwhile lands beside the frames it was heard with. The anchor is as exact
/// as the frame's delivery is prompt (a few milliseconds after capture or its due time).
public final class MediaClockAnchor: ImageInput, Sendable {
    public let inputSlots = InputSlots()
    /// The clock anchored.
    public let clock: MediaClock

    public init(clock: MediaClock) { self.clock = clock }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        clock.anchor(frame.timestamp)
    }
}
