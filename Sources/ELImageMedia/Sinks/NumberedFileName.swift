import ELImage

/// A file name pattern for an image sequence: `frame%05d.png` names frame 7 `frame00007.png`.
///
/// The pattern holds at most one decimal conversion (`%d`, `%5d` or `%05d`; `%%` is a literal
/// percent sign); a pattern without one names a single file. Anything else (`%s`, `%x`, two
/// numbers) is refused when the pattern is made, so no user text ever reaches `printf`.
public struct NumberedFileName: Sendable {
    private let prefix: String
    private let suffix: String
    /// The conversion's width and padding; nil when the pattern names one file.
    private let number: (width: Int, zeroPadded: Bool)?

    /// True when the pattern numbers its files (else it names one file).
    public var isNumbered: Bool { number != nil }

    /// - Throws: `ELImageError.invalidInput` naming the pattern when it holds a conversion other
    ///   than one `%d`-style number.
    public init(_ pattern: String) throws(ELImageError) {
        var prefix = "", suffix = ""
        var number: (width: Int, zeroPadded: Bool)?
        var characters = pattern[...]
        func refuse(_ why: String) -> ELImageError {
            .invalidInput(what: "the output name \(pattern) \(why)",
                          hint: "number the files with one %d, %4d or %04d (e.g. frame%05d.png); write %% for a percent sign")
        }
        while let character = characters.popFirst() {
            guard character == "%" else {
                if number == nil { prefix.append(character) } else { suffix.append(character) }
                continue
            }
            if characters.first == "%" {
                characters.removeFirst()
                if number == nil { prefix.append("%") } else { suffix.append("%") }
                continue
            }
            guard number == nil else { throw refuse("holds more than one number") }
            let zeroPadded = characters.first == "0"
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            characters.removeFirst(digits.count)
            guard characters.popFirst() == "d", digits.count <= 2, let width = digits.isEmpty ? 0 : Int(digits) else {
                throw refuse("holds a % conversion that is not a decimal number")
            }
            number = (width, zeroPadded)
        }
        self.prefix = prefix
        self.suffix = suffix
        self.number = number
    }

    /// The file for frame `index` (counted from 0).
    public func path(index: Int) -> String {
        guard let number else { return prefix }
        let digits = String(index)
        let padding = String(repeating: number.zeroPadded ? "0" : " ", count: max(0, number.width - digits.count))
        return prefix + padding + digits + suffix
    }
}
