import ELImage

/// Anchors a `MediaClock` at the first frame that reaches it. Put it right after a live source (a
/// camera, a file paced in real time), so sound captured meanwhile lands beside the frames it was
/// heard with.
///
/// A camera knows when each frame was captured: give it as `timing` and the frame's timestamp is
/// anchored at that moment, exactly. Otherwise the frame's arrival here stands for it: as exact as
/// its delivery is prompt (the time to upload and convert it, a few milliseconds to tens of
/// milliseconds after capture or its due time).
///
/// ```swift
/// camera --> MediaClockAnchor(clock: microphone.options.clock, timing: camera)
/// ```
public final class MediaClockAnchor: ImageInput, Sendable {
    public let inputSlots = InputSlots()
    /// The clock anchored.
    public let clock: MediaClock
    /// Held weakly: the source holds this node among its targets.
    nonisolated(unsafe) private weak var timing: (any CaptureTiming)?  // set once, in init

    /// - Parameters:
    ///   - clock: the clock to anchor.
    ///   - timing: the source that knows when its frames were captured (a `Camera`); nil: each
    ///     frame's arrival here counts.
    public init(clock: MediaClock, timing: (any CaptureTiming)? = nil) {
        self.clock = clock
        self.timing = timing
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard clock.offsetMicroseconds == nil else { return }  // the first frame anchored it
        if let captured = timing?.captureMicroseconds(of: frame.timestamp) {
            clock.anchor(frame.timestamp, atMonotonicMicroseconds: captured)
        } else {
            clock.anchor(frame.timestamp)
        }
    }
}
