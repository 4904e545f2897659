import ELImage

/// Anchors a `MediaClock` at the first frame that reaches it. Put it right after a live source (a
/// camera, a file paced in real time), so sound captured meanwhile lands beside the frames it was
/// heard with.
///
/// A camera knows when each frame was captured: give its `captureMicroseconds(of:)` as
/// `captureTime` and the frame's timestamp is anchored at that moment, exactly. Otherwise the
/// frame's arrival here stands for it: as exact as its delivery is prompt (the time to upload and
/// convert it, a few milliseconds to tens of milliseconds after capture or its due time).
public final class MediaClockAnchor: ImageInput, Sendable {
    public let inputSlots = InputSlots()
    /// The clock anchored.
    public let clock: MediaClock
    private let captureTime: (@Sendable (MediaTime) -> Int64?)?

    /// - Parameters:
    ///   - clock: the clock to anchor.
    ///   - captureTime: when the frame with a timestamp was captured, on the monotonic clock in
    ///     microseconds (nil: unknown; its arrival counts).
    public init(clock: MediaClock, captureTime: (@Sendable (MediaTime) -> Int64?)? = nil) {
        self.clock = clock
        self.captureTime = captureTime
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        if let captured = captureTime?(frame.timestamp) {
            clock.anchor(frame.timestamp, atMonotonicMicroseconds: captured)
        } else {
            clock.anchor(frame.timestamp)
        }
    }
}
