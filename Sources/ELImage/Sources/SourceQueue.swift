/// What a source's producer hands its delivery thread, in order.
enum SourceItem: Sendable {
    case frame(PixelBuffer, Orientation)
    /// Recoverable damage: counted, reported, the run goes on.
    case damage(any Error)
    /// An error to report that is no damage of a picture (a camera's device failure).
    case report(any Error)
    /// The run ends with this error (the pictures before it are delivered).
    case failure(any Error)
    case endOfStream
}

/// The hand-over between a source's producer thread and its delivery thread: pictures are
/// counted items under the run's `SourcePolicy`, events are control messages.
typealias SourceQueue = HandoffQueue<SourceItem>

extension HandoffQueue where Element == SourceItem {
    /// Back-pressure: `capacity` pictures wait, then the producer does. Newest wins: one waits.
    convenience init(policy: SourcePolicy) {
        if case .backPressure(let capacity) = policy { self.init(capacity: capacity) } else { self.init(capacity: 1) }
    }

    /// Puts a picture in: waits for room under back-pressure, replaces the waiting one otherwise.
    func put(_ frame: PixelBuffer, orientation: Orientation, policy: SourcePolicy) -> PushOutcome {
        push(.frame(frame, orientation), whenFull: policy == .newestWins ? .replaceOldest : .wait)
    }
}
