import ELImage
import Foundation

/// Paces frames by their timestamps on the wall clock, counted from the first frame, with pause:
/// the time spent paused moves every later frame's due time.
struct PlaybackClock {
    private var origin: (instant: ContinuousClock.Instant, time: Double)?
    private var pausedSince: ContinuousClock.Instant?
    private let clock = ContinuousClock()

    var isPaused: Bool { pausedSince != nil }

    mutating func setPaused(_ paused: Bool) {
        let now = clock.now
        if paused, pausedSince == nil {
            pausedSince = now
        } else if !paused, let since = pausedSince {
            pausedSince = nil
            if let origin { self.origin = (origin.instant + (now - since), origin.time) }
        }
    }

    /// How long to wait before the frame at `timestamp` is due (zero when it is due or late). A
    /// frame before the first (a loop, a seek) or more than a second late starts the count again.
    mutating func delay(until timestamp: MediaTime) -> Duration {
        let now = clock.now
        guard let origin, timestamp.seconds >= origin.time else {
            origin = (now, timestamp.seconds)
            return .zero
        }
        let due = origin.instant + .seconds(timestamp.seconds - origin.time)
        if now > due + .seconds(1) {
            self.origin = (now, timestamp.seconds)
            return .zero
        }
        return now < due ? due - now : .zero
    }
}
