import ELImageTestSupport
import Foundation
import Testing

/// The tests run programs thousands of times in one process: each run must give back the files
/// it opened. Left open, they pile up (every filter's reference output is a run) until starting
/// one more program reads past the end of a buffer: Foundation's `Process` lists `/proc/self/fd`
/// with a copy that over-reads when the list is long.
@Suite("Program runs")
struct ProgramRunTests {
    @Test("a run leaves none of its output files open")
    func runsCloseTheirFiles() async throws {
        let program = BuiltProgram(systemTool: "true")
        let runs = 20
        for _ in 0..<runs {
            let result = try await program.run([])
            try #require(result.status == 0, "true exited \(result.status): \(result.errors)")
        }
        // A run's output files are deleted with its folder; one still open is a leaked descriptor.
        // Other tests' runs may be between removing their folder and closing, so a few may show;
        // a leak leaves two a run, forty for this loop.
        let leaked = Self.openDeletedTestFiles()
        #expect(leaked.count < runs, "\(leaked.count) deleted test files still open: \(leaked.prefix(4))")
    }

    /// This process's open descriptors that name deleted files of the tests' temporary folders.
    static func openDeletedTestFiles() -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.contains("/elimage-test-") && $0.hasSuffix(" (deleted)") }
    }
}
