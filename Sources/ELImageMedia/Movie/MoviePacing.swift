import ELImage

/// How a file source (`MovieInput`, `StillImageInput`) feeds its frames into the graph.
public enum MoviePacing: Sendable, Equatable {
    /// Every frame, as fast as the graph takes it (transcoding, analysis): the decoder runs ahead
    /// by at most two frames and then waits until the graph has taken the current one. Nothing is
    /// dropped.
    case asFastAsPossible
    /// Each frame when its timestamp comes due on the wall clock, counted from the first frame
    /// (playback, preview). A frame that comes due more than one frame interval late (a slow graph,
    /// a slow decoder) is dropped and counted in the statistics, so the picture keeps up with the
    /// clock.
    case realTime
}

/// The real-time schedule: when each frame is due, and whether it is too late to show.
struct RealTimeSchedule {
    /// How late a frame may be and still be delivered (one frame interval).
    let tolerance: Duration
    private let clock = ContinuousClock()
    private var origin: (instant: ContinuousClock.Instant, time: MediaTime)?

    init(tolerance: Duration) { self.tolerance = tolerance }

    /// Waits until the frame at `timestamp` is due and returns true, or returns false at once when
    /// it is already too late. The first frame is due at once.
    mutating func waitUntilDue(_ timestamp: MediaTime) async -> Bool {
        let now = clock.now
        guard let origin else {
            origin = (now, timestamp)
            return true
        }
        let due = origin.instant + MediaTimeMath.duration(of: MediaTimeMath.difference(timestamp, origin.time))
        if now > due + tolerance { return false }
        if now < due {
            // A cancelled task stops sleeping early; the caller checks for cancellation.
            try? await Task.sleep(until: due, clock: clock)
        }
        return true
    }
}
