import ELImageTestSupport
import Foundation
import Testing

/// The DocC landing pages' examples are the code that `DocCExamples.swift` compiles: each page's
/// Swift blocks, but for their imports, are that file's "docc: <module> <n>" sections, line for
/// line (indentation aside).
@Suite("DocC: the landing pages' examples compile as written")
struct DocCExampleTests {
    static let modules = ["ELImage", "ELImageCamera", "ELImageDetection", "ELImageKit", "ELImageMedia",
                          "ELImagePreview", "ELImageTesting"]

    @Test("Every Swift block of the landing page is compiled by the tests", arguments: modules)
    func examplesAreCompiled(module: String) throws {
        let page = try String(contentsOfFile: Repository.path("Sources/\(module)/\(module).docc/\(module).md"),
                              encoding: .utf8)
        let compiled = try String(contentsOfFile: Repository.path("Tests/ELImageIntegrationTests/DocCExamples.swift"),
                                  encoding: .utf8)
        let blocks = Self.swiftBlocks(in: page)
        #expect(!blocks.isEmpty, "\(module).md has no Swift example")
        for (number, block) in blocks.enumerated() {
            let written = Self.dedented(Array(block.filter { !$0.hasPrefix("import ") }
                .drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }))
            let section = Self.section("\(module) \(number + 1)", in: compiled)
            #expect(section != nil, "DocCExamples.swift has no section \"docc: \(module) \(number + 1)\"")
            guard let section else { continue }
            // The section wraps the block in a function (its first and last lines) unless it is a
            // declaration of its own.
            let body = written.first == section.first ? section : Array(section.dropFirst().dropLast())
            #expect(Self.dedented(body) == written,
                    "\(module).md block \(number + 1) differs from DocCExamples.swift:\n\(written.joined(separator: "\n"))\n---\n\(Self.dedented(body).joined(separator: "\n"))")
        }
    }

    /// The lines of each ```swift block.
    static func swiftBlocks(in page: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in page.components(separatedBy: "\n") {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if let lines = current, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(lines)
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The lines between "// docc: <name>" and the next "// docc: end".
    static func section(_ name: String, in source: String) -> [String]? {
        let lines = source.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// docc: \(name)" }),
              let end = lines[start...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// docc: end" })
        else { return nil }
        return Array(lines[(start + 1)..<end])
    }

    /// `lines` without the indentation they all share (blank lines kept, as empty lines).
    static func dedented(_ lines: [String]) -> [String] {
        let indents = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }
        let common = indents.min() ?? 0
        return lines.map { $0.trimmingCharacters(in: .whitespaces).isEmpty ? "" : String($0.dropFirst(common)) }
    }
}
