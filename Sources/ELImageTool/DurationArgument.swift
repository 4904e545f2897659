import Foundation

/// Parses a duration option such as `10m`, `30s`, `1.5h`, `500ms` (a plain number is seconds;
/// `m` is minutes).
enum DurationArgument {
    /// The duration in `text`, or nil when it has no duration unit (it may be a size).
    static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        let unit = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
        guard let value = Double(number), value > 0 else { return nil }
        let seconds: Double? = switch unit {
        case "ms": value / 1000
        case "s", "": value
        case "m", "min": value * 60
        case "h": value * 3600
        default: nil
        }
        return seconds.map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }
}
