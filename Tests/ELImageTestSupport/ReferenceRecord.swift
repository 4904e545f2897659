import Foundation

/// The stored record of one reference output (FATE-style): what a reviewed run produced, kept in
/// `Tests/References/<filter>.tsv`, one line a case, beside a half-size copy of the picture.
///
/// A line: the case, the filter's arguments, the checksum of the full-size picture's samples as
/// the renderer that made the records drew it, whether every renderer the records were made on
/// drew the same bytes (`exact`) or not (`approximate`), how the file describes its picture
/// (ffprobe's pixel format, range, matrix, transfer, primaries and chroma location), and each
/// plane's PSNR floor against the stored half-size picture.
package struct ReferenceRecord: Sendable, Equatable {
    /// The case's name: `default.8bit.y4m`, `changed.10bit.png`, …
    package let name: String
    /// The filter's arguments, as `--filter NAME:ARGUMENTS` takes them ("" for its defaults).
    package let arguments: String
    package let checksum: String
    /// Every renderer the records were made on drew the same bytes: the arithmetic is exact, and
    /// those renderers must draw them again.
    package let exact: Bool
    /// How the file describes its picture, as ffprobe reads it ("-" for raw frames, which say nothing).
    package let tags: String
    /// Each plane's floor, in dB, against the stored half-size picture.
    package let floors: [Double]

    package init(name: String, arguments: String, checksum: String, exact: Bool, tags: String, floors: [Double]) {
        (self.name, self.arguments, self.checksum, self.exact, self.tags, self.floors) = (name, arguments, checksum, exact, tags, floors)
    }

    /// The line as stored.
    package func line(planeNames: [String]) -> String {
        let floors = zip(planeNames, floors).map { "\($0)=\(String(format: "%.1f", $1))" }.joined(separator: " ")
        return [name, arguments.isEmpty ? "-" : arguments, checksum, exact ? "exact" : "approximate", tags, floors].joined(separator: "\t")
    }

    /// Reads a stored line; nil for comments and blank lines.
    package init?(line: String, in file: String) throws {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let fields = trimmed.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        let floors = fields.count == 6 ? fields[5].split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } } : []
        guard fields.count == 6, ["exact", "approximate"].contains(fields[3]), !floors.isEmpty else {
            throw PictureMismatch("\(file): the line '\(line)' is not 'CASE<tab>ARGUMENTS<tab>CHECKSUM<tab>exact|approximate<tab>TAGS<tab>PLANE=dB …'; "
                                  + "run `make refs-update` to write the records again")
        }
        self.init(name: fields[0], arguments: fields[1] == "-" ? "" : fields[1], checksum: fields[2],
                  exact: fields[3] == "exact", tags: fields[4], floors: floors)
    }

    /// The records of `file`, by case name; an empty list for a file that does not exist.
    package static func read(_ file: String) throws -> [String: ReferenceRecord] {
        guard FileManager.default.fileExists(atPath: file) else { return [:] }
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var records: [String: ReferenceRecord] = [:]
        for line in lines {
            if let record = try ReferenceRecord(line: String(line), in: file) { records[record.name] = record }
        }
        return records
    }
}
