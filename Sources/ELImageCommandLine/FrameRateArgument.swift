import ELImageMedia
import Foundation

/// Parses `--fps`: a whole number of frames a second (`25`) or a fraction (`30000/1001`), above
/// zero and up to `fastestRate`.
public enum FrameRateArgument {
    /// The fastest rate: a constant-rate output repeats frames to fill its grid, so a mistyped rate
    /// would write frames without end.
    public static let fastestRate = 1000

    /// The rate in `text`.
    /// - Throws: a usage error naming `--fps` for anything else, a rate of zero or over `fastestRate`.
    public static func parse(_ text: String) throws(UsageError) -> Y4MHeader.Ratio {
        let parts = text.split(separator: "/").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        switch parts.count {
        case 1: if let value = parts[0], value > 0, value <= fastestRate { return Y4MHeader.Ratio(value, 1) }
        case 2: if let numerator = parts[0], let denominator = parts[1], numerator > 0, denominator > 0,
                   numerator <= Int(Int32.max), denominator <= Int(Int32.max),
                   Double(numerator) / Double(denominator) <= Double(fastestRate) {
            return Y4MHeader.Ratio(numerator, denominator)
        }
        default: break
        }
        throw UsageError("--fps \(text): write a rate up to \(fastestRate), such as 25 or 30000/1001")
    }
}
