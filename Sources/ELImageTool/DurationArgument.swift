import Foundation

/// Parses a duration option such as `10m`, `30s`, `1.5h`, `500ms` (a plain number is seconds;
/// `m` is minutes).
enum DurationArgument {
    /// The duration in `text`, or nil when it has no duration unit (it may be a size).
    static func parse(_ text: String) -> Duration? {
        guard let (value, _, unit) = split(text) else { return nil }
        let seconds: Double? = switch unit {
        case "ms": value / 1000
        case "s", "": value
        case "m", "min": value * 60
        case "h": value * 3600
        default: nil
        }
        return seconds.map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    /// A positive number and the unit after it (`"1.5 GiB"`: 1.5, "1.5", "GiB"); nil without one.
    static func split(_ text: String) -> (value: Double, number: Substring, unit: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(number), value > 0 else { return nil }
        return (value, number, trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces))
    }
}
