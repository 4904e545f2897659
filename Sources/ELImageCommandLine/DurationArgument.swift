import Foundation

/// Parses a duration option such as `10m`, `30s`, `1.5h`, `500ms` (a plain number is seconds;
/// `m` is minutes), from 1 ms to `longestHours`.
public enum DurationArgument {
    /// The longest duration an option takes, in hours (over eleven years): longer ones are typing
    /// mistakes, and would overflow the clock's arithmetic.
    public static let longestHours = 100_000

    /// The duration in `text`, or nil when it has no duration unit (it may be a size).
    /// - Throws: a usage error naming `option` for a duration under 1 ms or over `longestHours`.
    public static func parse(_ text: String, option: String) throws(UsageError) -> Duration? {
        guard let (value, _, unit) = split(text) else { return nil }
        let seconds: Double? = switch unit {
        case "ms": value / 1000
        case "s", "": value
        case "m", "min": value * 60
        case "h": value * 3600
        default: nil
        }
        guard let seconds else { return nil }
        let milliseconds = (seconds * 1000).rounded()
        guard milliseconds >= 1 else { throw UsageError("\(option) \(text): give at least 1ms") }
        guard milliseconds <= Double(longestHours) * 3_600_000 else {
            throw UsageError("\(option) \(text): durations go up to \(longestHours)h")
        }
        return .milliseconds(Int64(milliseconds))
    }

    /// A positive number and the unit after it (`"1.5 GiB"`: 1.5, "1.5", "GiB"); nil without one.
    static func split(_ text: String) -> (value: Double, number: Substring, unit: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(number), value > 0, value.isFinite else { return nil }
        return (value, number, trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces))
    }
}
