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
    private var origin: (instant: ContinuousClock.Instant, time: Duration)?

    init(tolerance: Duration, clock: any BlockingClock) {
        self.tolerance = tolerance
        self.clock = clock
    }

    /// When the frame at `timestamp` is due, or nil when it is already too late. The first frame
    /// is due at once; a later one as long after it as its timestamp says, to the attosecond.
    mutating func due(_ timestamp: MediaTime) -> ContinuousClock.Instant? {
        let now = clock.now
        let time = Self.duration(timestamp)
        guard let origin else {
            origin = (now, time)
            return now
        }
        let due = origin.instant + (time - origin.time)
        return now > due + tolerance ? nil : due
    }

    /// `time` as a `Duration`: exact for every timescale that divides 10^18 (1/25, 1/90000, ...),
    /// within an attosecond otherwise (1001/30000).
    static func duration(_ time: MediaTime) -> Duration {
        let scale = Int64(time.timescale)
        let rest = time.value % scale
        let attoseconds = Int128(rest) * 1_000_000_000_000_000_000 / Int128(scale)
        return Duration(secondsComponent: time.value / scale, attosecondsComponent: Int64(attoseconds))
    }
}
