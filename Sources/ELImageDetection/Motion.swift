import Foundation

/// Motion in an analysed frame (`MotionDetector`): how much of the picture changed since the
/// frame analysed before it, where, and what that did to the detector's motion state.
public struct Motion: Sendable, Equatable {
    /// What this frame did to the motion state.
    public enum Event: String, Sendable {
        /// Motion began: enough of the picture changed (the first frame of an event).
        case start
        /// Motion goes on, or the scene is still but within the hold time of the last motion.
        case ongoing
        /// The hold time passed without motion: the event is over (its last frame).
        case end
    }

    public let event: Event
    /// The fraction of the analysed picture whose luma changed by more than the threshold (0...1).
    public let area: Double
    /// Where it changed: the bounding box of the changed pixels, 0...1 across the frame (empty
    /// when nothing changed).
    public let bounds: CGRect
    /// The same box in the frame's pixels.
    public let pixelBounds: CGRect

    public init(event: Event, area: Double, bounds: CGRect, pixelBounds: CGRect) {
        self.event = event
        self.area = area
        self.bounds = bounds
        self.pixelBounds = pixelBounds
    }
}
