/// What the render thread does when a sink's hand-over queue to its worker thread is full.
public enum QueueFullPolicy: Sendable, Equatable {
    /// The render thread waits until there is room: no frame is lost and a file source is slowed
    /// to the sink's pace (the graph's back-pressure).
    case wait
    /// The frame is dropped and counted: for live sources (cameras), which must never stall.
    case drop
    /// The newest frame wins: it takes the place of the oldest one waiting, which is dropped and
    /// counted (side branches such as detectors, which want the latest picture, not every one).
    case replaceOldest
}
