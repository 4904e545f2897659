/// A live source that knows when each of its frames was captured, on `CLOCK_MONOTONIC` (a
/// camera: its V4L2 buffer times). What lines live sound up with the moment of capture
/// (`MediaClockAnchor` in ELImageMedia), not the moment a frame reached the graph.
public protocol CaptureTiming: AnyObject, Sendable {
    /// When the frame stamped `timestamp` was captured, in monotonic microseconds; nil when not
    /// known (before the stream's first frame).
    func captureMicroseconds(of timestamp: MediaTime) -> Int64?
}
