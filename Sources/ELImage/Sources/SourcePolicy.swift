/// What a source does when the graph is slower than its pictures come.
public enum SourcePolicy: Sendable, Equatable {
    /// Files: at most `capacity` pictures wait; the producer then waits for the graph, so nothing
    /// is lost and the order is kept.
    case backPressure(capacity: Int)
    /// Live sources (cameras): one picture waits; a newer one replaces it and the older is counted
    /// as dropped. The producer never waits for the graph.
    case newestWins
}

/// How a source feeds its frames into the graph.
public enum SourcePacing: Sendable, Equatable {
    /// Every frame, as fast as the graph takes it (transcoding, analysis).
    case asFastAsPossible
    /// Each frame when its timestamp comes due on the wall clock, counted from the first frame
    /// (playback, preview). A frame due more than one frame interval ago (a slow graph, a slow
    /// decoder) is dropped and counted, so the picture keeps up with the clock.
    case realTime
}

/// The real-time schedule: when each frame is due on the context's clock, and whether it is too
/// late to show.
struct RealTimeSchedule {
    /// How late a frame may be and still be delivered (one frame interval).
    let tolerance: Duration
    private let clock: any BlockingClock
    private var origin: (instant: ContinuousClock.Instant, seconds: Double)?

    init(tolerance: Duration, clock: any BlockingClock) {
        self.tolerance = tolerance
        self.clock = clock
    }

    /// When the frame at `timestamp` is due, or nil when it is already too late. The first frame
    /// is due at once.
    mutating func due(_ timestamp: MediaTime) -> ContinuousClock.Instant? {
        let now = clock.now
        guard let origin else {
            origin = (now, timestamp.seconds)
            return now
        }
        let due = origin.instant + .seconds(timestamp.seconds - origin.seconds)
        return now > due + tolerance ? nil : due
    }
}
