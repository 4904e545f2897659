/// A presentation time as an exact rational number of seconds, `value / timescale` (like CMTime).
///
/// Exact so that file timestamps (e.g. 1/90000 or 1001/30000) survive a round trip unchanged.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible, CustomDebugStringConvertible {
    public var value: Int64
    public var timescale: Int32

    public init(value: Int64, timescale: Int32) {
        self.value = value
        self.timescale = timescale > 0 ? timescale : 1
    }

    /// Time zero.
    public static let zero = MediaTime(value: 0, timescale: 1)

    /// A time in microseconds, the resolution of V4L2 buffer timestamps.
    public init(microseconds: Int64) { self.init(value: microseconds, timescale: 1_000_000) }

    /// Frame `index` of a stream with `framesPerSecond` = numerator/denominator.
    public init(frame index: Int64, framesPerSecond numerator: Int32, _ denominator: Int32 = 1) {
        self.init(value: index * Int64(denominator), timescale: numerator)
    }

    public var seconds: Double { Double(value) / Double(timescale) }

    /// The same instant in another timescale, rounded to the nearest tick.
    public func converted(to newScale: Int32) -> MediaTime {
        let ticks = (Double(value) * Double(newScale) / Double(timescale)).rounded()
        return MediaTime(value: Int64(ticks), timescale: newScale)
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        let (left, right) = crossProducts(lhs, rhs)
        return left.high < right.high || (left.high == right.high && left.low < right.low)
    }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        let (left, right) = crossProducts(lhs, rhs)
        return left.high == right.high && left.low == right.low
    }

    /// lhs.value * rhs.timescale and rhs.value * lhs.timescale, without overflow.
    private static func crossProducts(_ lhs: MediaTime, _ rhs: MediaTime)
        -> (left: (high: Int64, low: UInt64), right: (high: Int64, low: UInt64)) {
        (lhs.value.multipliedFullWidth(by: Int64(rhs.timescale)),
         rhs.value.multipliedFullWidth(by: Int64(lhs.timescale)))
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(seconds) }

    /// Seconds to the millisecond, e.g. "0.040 s" (`debugDescription` has the exact rational).
    public var description: String {
        let milliseconds = (Double(value) * 1000 / Double(timescale)).rounded()
        let magnitude = Int64(abs(milliseconds))
        let fraction = String(magnitude % 1000)
        let sign = milliseconds < 0 ? "-" : ""
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }

    /// The exact rational, e.g. "512/12800 s".
    public var debugDescription: String { "\(value)/\(timescale) s" }
}
