import ELImageMedia

/// Parses a `WIDTHxHEIGHT` option value (e.g. `1280x720`), the one spelling of a size on the
/// command line: two decimal numbers of ASCII digits joined by one `x` (or `X`), nothing else.
public enum SizeArgument {
    /// The largest side a size may give: the largest frame the readers and encoders take.
    public static let largestSide = Y4MHeader.maximumDimension

    /// The size in `text`, each side from `minimum` to `largestSide`; the error names `option`
    /// and shows `example`.
    /// - Throws: a usage error for anything but `WIDTHxHEIGHT` in that range (`1280xx720`,
    ///   `x720`, `+1280x720`, `1280x720x`, `99999x720` among them).
    public static func parse(_ text: String, option: String, minimum: Int = 1,
                             example: String) throws(UsageError) -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let sides = parts.compactMap(side)
        guard parts.count == 2, sides.count == 2, sides.allSatisfy({ (minimum...largestSide).contains($0) }) else {
            throw UsageError("\(option) \(text): write WIDTHxHEIGHT, each side \(minimum)...\(largestSide), e.g. \(example)")
        }
        return (sides[0], sides[1])
    }

    /// The number that `text` spells in ASCII digits only (no sign, no spaces); nil for anything
    /// else or a number of more than 9 digits.
    private static func side(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(text)
    }
}
