import ELImageMedia
import Foundation

/// Parses `--segment` (a duration such as `10m`, `30s`, `1h`, `500ms`, or a size such as `50MB`,
/// `1GiB`) into where each file of a segmented recording ends. `m` is minutes; sizes always end
/// in `B` (`kB MB GB` count in thousands, `KiB MiB GiB` in 1024s).
public enum SegmentArgument {
    /// The segment length in `text`.
    /// - Throws: a usage error naming `--segment` for text that is neither, a duration under 1 ms or
    ///   over `DurationArgument.longestHours`, or a size outside 16 KiB...16 TiB.
    public static func parse(_ text: String) throws(UsageError) -> RecordingSegments.Length {
        guard let (_, number, unit) = DurationArgument.split(text) else { throw usage(text) }
        if unit == "M" || unit == "K" || unit == "G" {
            throw UsageError("--segment \(text): \(unit) alone is ambiguous; write \(number)m for minutes or \(number)\(unit)B for a size")
        }
        if let duration = try DurationArgument.parse(text, option: "--segment") { return .duration(duration) }
        guard let bytes = ByteSizeArgument.bytes(in: text) else { throw usage(text) }
        guard bytes >= Double(RecordingSegments.smallestBytes), bytes <= Double(largestBytes) else {
            throw UsageError("--segment \(text): give a size from \(ByteSizeArgument.describe(RecordingSegments.smallestBytes)) to \(ByteSizeArgument.describe(largestBytes))")
        }
        return .bytes(Int64(bytes))
    }

    /// The largest file a size may give: an ext4 file's limit.
    public static let largestBytes: Int64 = 16 << 40

    private static func usage(_ text: String) -> UsageError {
        UsageError("--segment \(text): give a duration (10m, 30s, 1h, 500ms) or a size (50MB, 1GiB), e.g. --segment 10m")
    }
}
