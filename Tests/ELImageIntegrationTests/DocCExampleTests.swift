import ELImageTestSupport
import Foundation
import Testing

/// The documentation's examples are code the tests compile: every Swift block of every DocC page
/// (`Sources/<module>/<module>.docc/*.md`: landing pages and articles) and of `README.md`, but for
/// its imports, is a "docc: <page> <n>" … "docc: end" section of a Swift file of this test target,
/// line for line (indentation aside). A page is named `<module>/<file name>` (`ELImage/APITour`),
/// or `README`. Sections of snippets that a test runs sit in that test (`APITourTests`); the others
/// are in `DocCExamples.swift`.
@Suite("DocC: every Swift block of the documentation compiles as written")
struct DocCExampleTests {
    /// Every documentation page with Swift blocks to check, as (name, path from the repository root).
    static let pages: [Page] = {
        var pages = [Page(name: "README", path: "README.md")]
        let sources = Repository.path("Sources")
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []
        for module in modules.sorted() {
            let catalog = "Sources/\(module)/\(module).docc"
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: Repository.path(catalog)) else { continue }
            for file in files.sorted() where file.hasSuffix(".md") {
                pages.append(Page(name: "\(module)/\(file.dropLast(3))", path: "\(catalog)/\(file)"))
            }
        }
        return pages
    }()

    /// A documentation page.
    struct Page: Sendable, CustomTestStringConvertible {
        let name: String
        let path: String
        var testDescription: String { path }
        /// A landing page (`<module>.md` in `<module>.docc`), which must show some code.
        var isLandingPage: Bool { name.split(separator: "/").count == 2 && name.split(separator: "/")[0] == name.split(separator: "/")[1] }
    }

    /// The Swift files whose sections are the pages' blocks.
    static func testSources() throws -> [String] {
        let folder = Repository.path("Tests/ELImageIntegrationTests")
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            .filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
    }

    @Test("The documentation has its pages: README.md and every catalog's landing page")
    func pagesAreFound() {
        #expect(Self.pages.count > 7)
        #expect(Self.pages.filter(\.isLandingPage).count == 7)
    }

    @Test("Every Swift block of the page is a section the tests compile", arguments: pages)
    func examplesAreCompiled(page: Page) throws {
        let text = try String(contentsOfFile: Repository.path(page.path), encoding: .utf8)
        let sources = try Self.testSources()
        let blocks = Self.swiftBlocks(in: text)
        if page.isLandingPage { #expect(!blocks.isEmpty, "\(page.path) has no Swift example") }
        for (number, block) in blocks.enumerated() {
            let name = "\(page.name) \(number + 1)"
            let written = Self.dedented(Array(block.filter { !$0.hasPrefix("import ") }
                .drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }))
            let found = sources.compactMap { Self.section(name, in: $0) }
            #expect(found.count == 1, "\(found.count) sections \"docc: \(name)\" in Tests/ELImageIntegrationTests (one expected)")
            guard let section = found.first else { continue }
            // The section wraps the block in a function (its first and last lines) unless it is
            // the block itself (a declaration, or statements inside a test that runs them).
            let body = written.first == Self.dedented(section).first ? section : Array(section.dropFirst().dropLast())
            #expect(Self.dedented(body) == written,
                    "\(page.path) block \(number + 1) differs from section \"docc: \(name)\":\n\(written.joined(separator: "\n"))\n---\n\(Self.dedented(body).joined(separator: "\n"))")
        }
    }

    @Test("Every section names a Swift block of a page")
    func sectionsHaveBlocks() throws {
        var names: Set<String> = []
        for page in Self.pages {
            let text = try String(contentsOfFile: Repository.path(page.path), encoding: .utf8)
            for number in Self.swiftBlocks(in: text).indices { names.insert("\(page.name) \(number + 1)") }
        }
        for source in try Self.testSources() {
            for line in source.components(separatedBy: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("// docc: "), trimmed != "// docc: end" else { continue }
                let name = String(trimmed.dropFirst("// docc: ".count))
                #expect(names.contains(name), "section \"docc: \(name)\" has no Swift block of that number in that page")
            }
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
