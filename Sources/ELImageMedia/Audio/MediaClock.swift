import ELImage
import Foundation

/// The one timeline of a recording with live sound: how the monotonic clock (`CLOCK_MONOTONIC`,
/// what audio capture stamps its samples with) maps onto the frames' `MediaTime`s.
///
/// A camera stamping frames with the monotonic clock (`CaptureSettings.timestamps =
/// .monotonicClock`) uses `MediaClock.monotonic`: the same times. A source with its own zero (a
/// file paced in real time) `anchor`s an unanchored clock when its first frame is due, and the
/// sound captured is placed against the frames from there on.
public final class MediaClock: Sendable {
    /// Media time = monotonic time − offset (microseconds); nil until anchored.
    private let offset: Locked<Int64?>

    /// A clock not yet anchored: audio waits for `anchor`.
    public init() { offset = Locked(nil) }

    private init(offset: Int64) { self.offset = Locked(offset) }

    /// The frames are stamped with the monotonic clock itself (microseconds).
    public static var monotonic: MediaClock { MediaClock(offset: 0) }

    /// The monotonic clock now, in microseconds.
    public static func nowMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// Says that media time `time` is monotonic time `microseconds` (now, by default). The first
    /// anchor counts; later ones are ignored.
    public func anchor(_ time: MediaTime, atMonotonicMicroseconds microseconds: Int64 = MediaClock.nowMicroseconds()) {
        let media = Int64((time.seconds * 1_000_000).rounded())
        offset.withLock { offset in
            if offset == nil { offset = microseconds - media }
        }
    }

    /// The offset (monotonic − media, microseconds) once anchored.
    public var offsetMicroseconds: Int64? { offset.withLock { $0 } }
}
