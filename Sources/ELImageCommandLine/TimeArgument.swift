import Foundation

/// Parses a position or a length in time as ffmpeg's `-ss` and `-t` take them: `[HH:]MM:SS[.mmm]`
/// (`1:30`, `00:01:30.5`), or seconds with an optional unit (`90`, `2.5s`, `500ms`, `1.5m`, `1h`).
public enum TimeArgument {
    /// The time in `text`, at millisecond precision.
    /// - Parameters:
    ///   - option: how the error names the option (`-ss`, `-t`).
    ///   - allowsZero: whether `0` is a valid answer (a start is; a length is not).
    /// - Throws: a usage error naming `option` for text that is not a time, a negative one, zero
    ///   when not allowed, or one over `DurationArgument.longestHours`.
    public static func parse(_ text: String, option: String, allowsZero: Bool) throws(UsageError) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let example = allowsZero ? "\(option) 1:30 or \(option) 90s" : "\(option) 10s or \(option) 0:10"
        guard let seconds = clockSeconds(trimmed) ?? unitSeconds(trimmed), seconds.isFinite, seconds >= 0 else {
            throw UsageError("\(option) \(text): write a time as [HH:]MM:SS[.mmm] or seconds (90, 2.5s, 500ms), e.g. \(example)")
        }
        let milliseconds = (seconds * 1000).rounded()
        if milliseconds == 0, !allowsZero {
            throw UsageError("\(option) \(text): give a length of at least 1ms, e.g. \(example)")
        }
        guard milliseconds <= Double(DurationArgument.longestHours) * 3_600_000 else {
            throw UsageError("\(option) \(text): times go up to \(DurationArgument.longestHours)h")
        }
        return .milliseconds(Int64(milliseconds))
    }

    /// `HH:MM:SS[.mmm]` or `MM:SS[.mmm]`: minutes and seconds below 60 after the first field.
    private static func clockSeconds(_ text: String) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), fields.allSatisfy({ !$0.isEmpty }) else { return nil }
        let whole = fields.dropLast().map { field in field.allSatisfy(\.isNumber) ? Double(field) : nil }
        guard let last = fields.last, last.allSatisfy({ $0.isNumber || $0 == "." }), let seconds = Double(last),
              whole.allSatisfy({ $0 != nil }) else { return nil }
        let values = whole.compactMap { $0 }
        // Every field after the first counts within its unit: 1:75 is a typing mistake.
        guard seconds < 60, values.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        return values.reduce(0) { $0 * 60 + $1 } * 60 + seconds
    }

    /// Seconds with an optional unit: `90`, `2.5s`, `500ms`, `1.5m`, `1h`; `0` is zero.
    private static func unitSeconds(_ text: String) -> Double? {
        let number = text.prefix { $0.isNumber || $0 == "." }
        guard !number.isEmpty, let value = Double(number) else { return nil }
        switch text.dropFirst(number.count).trimmingCharacters(in: .whitespaces) {
        case "", "s": return value
        case "ms": return value / 1000
        case "m", "min": return value * 60
        case "h": return value * 3600
        default: return nil
        }
    }
}
