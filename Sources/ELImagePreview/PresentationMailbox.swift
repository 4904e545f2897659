import ELImage
import Foundation

/// The one-frame hand-over from the render thread to a preview's presentation thread: the newest
/// frame wins, and a frame replaced before it was shown is counted as dropped. The render thread
/// never waits for the presentation thread.
final class PresentationMailbox: @unchecked Sendable {
    // @unchecked Sendable: every stored property is guarded by `condition`.
    struct Delivery {
        let frame: TextureFrame
        let fence: GLFence?
    }

    private let condition = NSCondition()
    private var waiting: Delivery?
    private var stopped = false
    private(set) var dropped = 0

    /// Leaves `delivery` for the presentation thread, replacing (and counting) an unshown one.
    func put(_ delivery: Delivery) {
        condition.lock()
        if waiting != nil { dropped += 1 }
        waiting = delivery
        condition.signal()
        condition.unlock()
    }

    /// Counts a frame that will never be shown (the window failed or is closing).
    func countDropped() {
        condition.lock()
        dropped += 1
        condition.unlock()
    }

    /// Waits up to `timeout` for a frame; nil when none came or the mailbox was stopped. With
    /// `take: false` it only waits, leaving the frame for a later call.
    func next(timeout: TimeInterval, take: Bool = true) -> Delivery? {
        condition.lock()
        defer { condition.unlock() }
        if waiting == nil, !stopped { _ = condition.wait(until: Date(timeIntervalSinceNow: timeout)) }
        guard take, !stopped else { return nil }
        defer { waiting = nil }
        return waiting
    }

    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Ends the presentation loop; an unshown frame is counted as dropped and let go.
    func stop() {
        condition.lock()
        if waiting != nil { dropped += 1 }
        waiting = nil
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
