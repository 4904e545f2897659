/// Parses a `WIDTHxHEIGHT` option value (e.g. `1280x720`), the one spelling of a size on the
/// command line.
enum SizeArgument {
    /// The size in `text`, each side at least `minimum`; the error names `option` and shows `example`.
    static func parse(_ text: String, option: String, minimum: Int = 1,
                      example: String) throws(UsageError) -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= minimum, parts[1] >= minimum else {
            let bound = minimum > 1 ? " of at least \(minimum)x\(minimum)" : ""
            throw UsageError("\(option) \(text): write WIDTHxHEIGHT\(bound), e.g. \(example)")
        }
        return (parts[0], parts[1])
    }
}
