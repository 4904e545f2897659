import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// The checks `make docs-check` runs over the product documents catch what they are for: a
/// commit hash or an issue reference in a page, and a benchmark table edited by hand.
@Suite("Documents: the history check and the benchmark tables' check fail where they should")
struct DocumentChecksTests {
    @Test("docs_lint.py flags a commit hash, an issue reference and a machine note; a SHA-256 and an anchor pass")
    func historyMarks() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clean = "Checksum 07a69013008e612c4d2ad31b09645038911dfec67411cd68ccd0da55ca291a35; see [HDR](#10-bits).\n"
        try clean.write(toFile: folder.path("README.md"), atomically: true, encoding: .utf8)
        #expect(throws: Never.self) { try runTool("python3", [Repository.path("Tests/Scripts/docs_lint.py"), folder.url.path]) }

        try (clean + "Fixed in 3f9c2e1 for issue 12 (#34), measured on this machine.\n")
            .write(toFile: folder.path("README.md"), atomically: true, encoding: .utf8)
        let failure = try #require(throws: ToolFailure.self) {
            try runTool("python3", [Repository.path("Tests/Scripts/docs_lint.py"), folder.url.path])
        }
        let report = failure.message
        #expect(failure.status == 1)
        for mark in ["'3f9c2e1' reads as a commit hash", "'issue 12' reads as an issue", "'#34' reads as an issue",
                     "'this machine' is a note about a development machine"] {
            #expect(report.contains(mark), "\(mark) missing from: \(report)")
        }
    }

    @Test("The benchmark page's tables are those of its committed results, and an edited table fails the check")
    func benchmarkTables() throws {
        let script = Repository.path("Benchmarks/Scripts/bench_report.py")
        let results = Repository.path("docs/benchmarks/results.json")
        #expect(throws: Never.self) { try runTool("python3", [script, results, "--check", Repository.path("docs/BENCHMARKS.md")]) }

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let page = try String(contentsOfFile: Repository.path("docs/BENCHMARKS.md"), encoding: .utf8)
        let edited = try #require(page.range(of: "**", options: .backwards).map { page.replacingCharacters(in: $0, with: "*") })
        try edited.write(toFile: folder.path("BENCHMARKS.md"), atomically: true, encoding: .utf8)
        let failure = try #require(throws: ToolFailure.self) {
            try runTool("python3", [script, results, "--check", folder.path("BENCHMARKS.md")])
        }
        #expect(failure.message.contains("make bench-report"), "\(failure.message)")
    }

    @Test("Every page and section an error's hint points to exists", arguments: DocumentationPage.allCases)
    func errorPointers(page: DocumentationPage) throws {
        let (file, heading) = page.location
        let text = try String(contentsOfFile: Repository.path(file), encoding: .utf8)
        let headings = text.split(separator: "\n").filter { $0.hasPrefix("#") }
            .map { $0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces) }
        #expect(headings.contains(heading), "\(file) has no heading “\(heading)”: \(headings)")
        #expect(page.pointer.contains(heading))
    }
}
