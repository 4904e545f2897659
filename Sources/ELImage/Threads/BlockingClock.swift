import Foundation

/// The time a render context's nodes read and wait on: when a file played in real time shows its
/// next frame, when a camera that sends nothing has stalled.
///
/// A `Clock` whose waits the framework's own threads (which are not tasks) can also make, blocking.
/// `ContinuousClock` is the one programs use and `RenderContext`'s default; a test hands the context
/// ELImageTesting's `ManualClock`, which moves only when the test advances it, so that pacing and
/// timeouts happen exactly when the test says and never because the machine was slow:
///
/// ```swift
/// let clock = ManualClock()
/// let context = try RenderContext(clock: clock)
/// ```
public protocol BlockingClock: Clock, Sendable where Instant == ContinuousClock.Instant {
    /// Blocks the calling thread on `condition`, whose lock it holds, until the condition is
    /// signalled or `deadline` comes on this clock, whichever is first; it may also return early.
    /// Callers check what they wait for again afterwards, in a loop.
    func wait(on condition: NSCondition, until deadline: Instant)
}

extension ContinuousClock: BlockingClock {
    public func wait(on condition: NSCondition, until deadline: Instant) {
        let left = now.duration(to: deadline)
        guard left > .zero else { return }
        _ = condition.wait(until: Date(timeIntervalSinceNow: left.timeInterval))
    }
}

extension Duration {
    /// The duration in seconds, as Foundation's APIs take it.
    package var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
