import ELImage
import Foundation

/// Runs a program built next to the test bundle (`elimage`, the examples), or one of the system's
/// (`ffmpeg`), and reports its exit status and output.
package struct BuiltProgram: Sendable {
    package let name: String
    package let url: URL

    /// The program `name` built next to the test bundle.
    package init(name: String) {
        self.name = name
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        url = folder.appendingPathComponent(name)
    }

    /// The program `name` found on `PATH` (a missing one fails when it is run, naming it).
    package init(systemTool name: String) {
        self.name = name
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        let found = folders.map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        url = found ?? URL(fileURLWithPath: "/usr/bin").appendingPathComponent(name)
    }

    /// Runs the program to its end. Async, so the wait holds no thread of the cooperative pool
    /// (on a 2-core machine it has two, and every parallel test needs them). `environment` is added
    /// to the test process's own.
    package func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let outputPath = folder.path("out"), errorPath = folder.path("err")
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
              FileManager.default.createFile(atPath: errorPath, contents: nil) else {
            throw ELImageError.io(file: folder.url.path, operation: "create files in", errno: errno, hint: "")
        }
        // Closed here: Foundation never releases a Process given a termination handler, so the
        // files it holds would stay open, two descriptors a run.
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? output.close(); try? errors.close() }
        process.standardOutput = output
        process.standardError = errors
        try await withCheckedThrowingContinuation { (ended: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in ended.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                ended.resume(throwing: error)
            }
        }
        return (process.terminationStatus,
                (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }
}
