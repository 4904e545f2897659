import ELImage
import Foundation

/// The file names of a segmented recording: a `strftime` pattern expanded at each segment's
/// first frame, or (without `%`) the path with the segment's number before its extension. Names
/// already used by the recording get `-2`, `-3`, ... before the extension.
struct SegmentFileNames: Sendable {
    /// The `strftime` conversions a pattern may use: dates and times only (no `%n` or `%t`, which
    /// would put a newline or a tab into a file name).
    static let timeConversions: Set<Character> = [
        "Y", "y", "C", "G", "g", "m", "b", "B", "h", "d", "e", "j", "a", "A", "u", "w", "U", "W", "V",
        "H", "I", "k", "l", "M", "S", "p", "P", "F", "T", "R", "D", "s", "z", "Z", "%",
    ]

    let pattern: String
    private let isTimed: Bool

    /// - Throws: `ELImageError.invalidInput` for a conversion that is not a date or time (naming it).
    init(pattern: String) throws {
        var characters = pattern.makeIterator()
        var timed = false
        while let character = characters.next() {
            guard character == "%" else { continue }
            guard let conversion = characters.next(), Self.timeConversions.contains(conversion) else {
                throw ELImageError.invalidInput(
                    what: "the segment file pattern \(pattern) has a conversion that is not a date or time",
                    hint: "use strftime's %Y %m %d %H %M %S (e.g. cam-%Y%m%d-%H%M%S.mp4), %% for a percent sign, or no % for numbered files")
            }
            if conversion != "%" { timed = true }
        }
        self.pattern = pattern
        isTimed = timed
    }

    /// The path of a file that is not a segment (a pre-record's): the pattern expanded at
    /// `date` when it has time conversions, else the pattern itself.
    func path(startingAt date: Date) -> String {
        isTimed ? Self.format(pattern, date) : pattern
    }

    /// The path of segment `index` (0 for the first) whose first frame was shown at `date`, not
    /// one of `taken`.
    func path(forSegment index: Int, startingAt date: Date, avoiding taken: Set<String>) -> String {
        let name = isTimed ? Self.format(pattern, date) : Self.numbered(pattern, index + 1)
        guard taken.contains(name) else { return name }
        var copy = 2
        while taken.contains(Self.suffixed(name, "-\(copy)")) { copy += 1 }
        return Self.suffixed(name, "-\(copy)")
    }

    private static func format(_ pattern: String, _ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        localtime_r(&seconds, &fields)
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = strftime(&buffer, buffer.count, pattern, &fields)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func numbered(_ path: String, _ number: Int) -> String {
        let digits = String(number)
        return suffixed(path, "-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits)
    }

    /// `path` with `suffix` before its extension (`a/b.mp4` + `-2` → `a/b-2.mp4`).
    private static func suffixed(_ path: String, _ suffix: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[slash...].lastIndex(of: "."), dot != slash else { return path + suffix }
        return String(path[..<dot]) + suffix + String(path[dot...])
    }
}
