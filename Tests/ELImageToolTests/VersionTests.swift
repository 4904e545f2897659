import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// The version has one source, `ELImageRelease.version`: the Makefile (release-check, the Debian
/// package), CHANGELOG.md's newest release and `elimage --version` all say it.
@Suite("Version")
struct VersionTests {
    let elimage = BuiltProgram(name: "elimage")

    @Test("The version is a semantic version")
    func semantic() {
        let parts = ELImageRelease.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "\(ELImageRelease.version)")
    }

    @Test("CHANGELOG.md's newest release is this version, with an Unreleased section above it")
    func changelog() throws {
        let lines = try String(contentsOfFile: Repository.path("CHANGELOG.md"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let headings = lines.filter { $0.hasPrefix("## [") }
        #expect(headings.first == "## [Unreleased]", "\(headings)")
        let release = try #require(headings.dropFirst().first)
        #expect(release.hasPrefix("## [\(ELImageRelease.version)] - "), "\(release)")
        // Keep a Changelog's date: YYYY-MM-DD.
        let date = release.split(separator: " ").last.map(String.init) ?? ""
        #expect(date.count == 10 && date.split(separator: "-").map(\.count) == [4, 2, 2], "\(release)")
    }

    @Test("The Makefile's version (release-check, the Debian package) is ELImageRelease.version")
    func makefile() throws {
        let output = try runTool("make", ["--no-print-directory", "-s", "-C", Repository.root.path, "version"])
        #expect(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == ELImageRelease.version)
    }

    @Test("elimage --version prints the version, then the renderer and its OpenGL ES version; exit 0")
    func versionFlag() async throws {
        let result = try await elimage.run(["--version"])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.output)")
        #expect(lines.first == "elimage \(ELImageRelease.version)", "\(result.output)")
        // The tests run where a context can be made (llvmpipe at least).
        let renderer = try #require(lines.dropFirst().first)
        #expect(renderer.hasPrefix("renderer: ") && renderer.contains(", OpenGL ES "), "\(renderer)")
    }

    @Test("--version after a subcommand is a usage error, not ignored")
    func versionAfterSubcommand() async throws {
        let result = try await elimage.run(["filters", "--version"])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.errors == "elimage: usage: --version is an option of elimage itself: elimage --version\n", "\(result.errors)")
    }

    @Test("elimage --help still prints the help, with --version in it; exit 0")
    func help() async throws {
        let result = try await elimage.run(["--help"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("USAGE: elimage") && result.output.contains("--version"), "\(result.output)")
    }
}
