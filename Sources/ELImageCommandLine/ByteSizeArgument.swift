/// Parses a size in bytes such as `50MB` or `1GiB`: sizes always end in `B` (`kB MB GB TB`
/// count in thousands, `KiB MiB GiB TiB` in 1024s).
public enum ByteSizeArgument {
    /// The bytes `text` gives, or nil when it is not a number with a size unit.
    public static func bytes(in text: String) -> Double? {
        guard let (value, _, unit) = DurationArgument.split(text) else { return nil }
        let scale: Double? = switch unit {
        case "B": 1
        case "kB", "KB": 1e3
        case "MB": 1e6
        case "GB": 1e9
        case "TB": 1e12
        case "KiB": 1024
        case "MiB": 1_048_576
        case "GiB": 1_073_741_824
        case "TiB": 1_099_511_627_776
        default: nil
        }
        return scale.map { (value * $0).rounded() }
    }

    /// The size in `text`, within `range`.
    /// - Throws: a usage error naming `option`, the range and an example.
    public static func parse(_ text: String, option: String, range: ClosedRange<Int64>, example: String) throws(UsageError) -> Int64 {
        guard let bytes = bytes(in: text) else {
            throw UsageError("\(option) \(text): give a size such as \(example) (kB MB GB count in thousands, KiB MiB GiB in 1024s)")
        }
        guard bytes >= Double(range.lowerBound), bytes <= Double(range.upperBound) else {
            throw UsageError("\(option) \(text): give a size from \(describe(range.lowerBound)) to \(describe(range.upperBound)), e.g. \(option) \(example)")
        }
        return Int64(bytes)
    }

    /// `16 << 40` as "16TiB", `16 << 10` as "16KiB": the largest binary unit that divides it.
    public static func describe(_ bytes: Int64) -> String {
        for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] where bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)B"
    }
}
