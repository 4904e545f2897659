import ELImage

/// Sums and differences of `MediaTime`s (exact when they share a timescale, as the frames of one
/// stream do), and their conversion to `Duration`.
///
/// Times come from files, so any value can arrive (a damaged header can state a start or a
/// duration near the limits of `Int64`). Nothing here traps: `checkedSum` and `checkedDifference`
/// return nil when the result does not fit, for callers that report the file as damaged; `sum` and
/// `difference` clamp to the largest or smallest time their timescale can hold.
enum MediaTimeMath {
    /// `time` in ticks of 1/`timescale` s, rounded to the nearest tick, without overflowing.
    static func ticks(_ time: MediaTime, timescale: Int32) -> Int64 {
        if time.timescale == timescale { return time.value }
        let product = time.value.multipliedFullWidth(by: Int64(timescale))
        let divisor = Int64(time.timescale)
        // The quotient fits when the high part is small against the divisor.
        guard product.high.magnitude < UInt64(divisor) / 2 else {
            return Int64((Double(time.value) * Double(timescale) / Double(divisor)).rounded())
        }
        let (quotient, remainder) = divisor.dividingFullWidth(product)
        if remainder.magnitude * 2 >= UInt64(divisor) { return quotient + (remainder < 0 ? -1 : 1) }
        return quotient
    }

    /// `left + right`, or nil when it does not fit. With different timescales the result is in the
    /// finer one, rounded to the nearest tick.
    static func checkedSum(_ left: MediaTime, _ right: MediaTime) -> MediaTime? {
        let scale = max(left.timescale, right.timescale)
        guard let leftValue = value(of: left, in: scale), let rightValue = value(of: right, in: scale) else { return nil }
        let (total, overflow) = leftValue.addingReportingOverflow(rightValue)
        return overflow ? nil : MediaTime(value: total, timescale: scale)
    }

    /// `left - right`, or nil when it does not fit.
    static func checkedDifference(_ left: MediaTime, _ right: MediaTime) -> MediaTime? {
        let (negated, overflow) = Int64(0).subtractingReportingOverflow(right.value)
        return overflow ? nil : checkedSum(left, MediaTime(value: negated, timescale: right.timescale))
    }

    /// `left + right`, clamped to the range of `Int64` ticks of the finer timescale.
    static func sum(_ left: MediaTime, _ right: MediaTime) -> MediaTime {
        if let exact = checkedSum(left, right) { return exact }
        let scale = max(left.timescale, right.timescale)
        let positive = left.seconds + right.seconds > 0
        return MediaTime(value: positive ? .max : .min, timescale: scale)
    }

    /// `left - right`, clamped like `sum`.
    static func difference(_ left: MediaTime, _ right: MediaTime) -> MediaTime {
        if let exact = checkedDifference(left, right) { return exact }
        let scale = max(left.timescale, right.timescale)
        return MediaTime(value: left.seconds > right.seconds ? .max : .min, timescale: scale)
    }

    static func duration(of time: MediaTime) -> Duration {
        let scale = Int64(time.timescale)
        let whole = time.value / scale, remainder = time.value % scale
        return .seconds(whole) + .nanoseconds(remainder * 1_000_000_000 / scale)
    }

    /// `time` in ticks of `scale` (at least `time.timescale`), rounded to the nearest tick (halves
    /// away from zero), or nil when that does not fit in `Int64`.
    private static func value(of time: MediaTime, in scale: Int32) -> Int64? {
        if time.timescale == scale { return time.value }
        guard time.timescale > 0, scale > 0 else { return nil }
        // |value| * scale / timescale in 128 bits: the quotient fits in 64 bits when the product's
        // high word is below the divisor (which also keeps dividingFullWidth from trapping).
        let divisor = UInt64(time.timescale)
        let product = time.value.magnitude.multipliedFullWidth(by: UInt64(scale))
        guard product.high < divisor else { return nil }
        var (quotient, remainder) = divisor.dividingFullWidth(product)
        if remainder >= divisor - remainder {
            let (rounded, overflow) = quotient.addingReportingOverflow(1)
            guard !overflow else { return nil }
            quotient = rounded
        }
        guard quotient <= UInt64(Int64.max) else { return nil }
        return time.value < 0 ? -Int64(quotient) : Int64(quotient)
    }
}
