import ELImage
import ELImageTesting
import Foundation
import Glibc

/// A program started in the background, to be stopped by a signal or a key: what it says, the
/// files it writes and its end are events a test waits on (its standard output and error go to
/// files in `folder`, watched with inotify).
package final class SignalledRun {
    package let process = Process()
    package let folder: TemporaryFolder
    private let ended = Waitable(false)
    /// The folder watches waiting now: woken when the program ends.
    private let watches = Locked<[FolderWatch]>([])

    /// `environment`: the program's (nil: this process's).
    package init(program: BuiltProgram, arguments: [String], environment: [String: String]? = nil) throws {
        folder = try TemporaryFolder()
        process.executableURL = program.url
        process.arguments = arguments
        if let environment { process.environment = environment }
        _ = FileManager.default.createFile(atPath: folder.path("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: folder.path("err"), contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path("out")))
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path("err")))
        process.standardOutput = output
        process.standardError = errors
        // The files are closed when the program ends: Foundation never releases a Process given a
        // termination handler, so they would stay open with it.
        process.terminationHandler = { [ended, watches] _ in
            try? output.close()
            try? errors.close()
            ended.update { $0 = true }
            for watch in watches.withLock({ $0 }) { watch.poke() }
        }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        folder.remove()
    }

    /// What the program wrote on standard output and standard error so far.
    package var output: String { (try? String(contentsOfFile: folder.path("out"), encoding: .utf8)) ?? "" }
    package var errors: String { (try? String(contentsOfFile: folder.path("err"), encoding: .utf8)) ?? "" }

    /// Waits (up to `timeout`) until `file` holds what `condition` wants (frames are flowing), or
    /// the program ended.
    /// - Throws: `ToolFailure` with the program's errors when it did not.
    package func waitUntil(file: String, timeout: Duration = .seconds(60), holds condition: @escaping (Data) -> Bool) async throws {
        let watch = try watching(URL(fileURLWithPath: file).deletingLastPathComponent().path)
        defer { stopWatching(watch) }
        let process = process
        guard await watch.waitForFile(file, timeout: timeout, while: { process.isRunning }, until: condition) else {
            throw ToolFailure(tool: process.executableURL?.lastPathComponent ?? "", status: process.isRunning ? 0 : process.terminationStatus,
                              message: "\(file) never held what the test waits for: \(errors)")
        }
    }

    /// Waits until `file` has at least `bytes`.
    package func waitUntil(file: String, holds bytes: Int) async throws {
        try await waitUntil(file: file) { $0.count >= bytes }
    }

    /// Waits up to a minute until the program has said `text` on standard output.
    package func waitUntilSaid(_ text: String) async throws -> Bool {
        let watch = try watching(folder.url.path)
        defer { stopWatching(watch) }
        let process = process
        _ = await watch.wait { output.contains(text) || !process.isRunning }
        return output.contains(text)
    }

    /// Waits up to `timeout` for the program to end by itself; true when it did.
    package func waitForExit(timeout: Duration = .seconds(60)) async -> Bool {
        await ended.wait(timeout: timeout) { $0 }
    }

    /// Sends `signal`, waits for the exit (up to a minute) and returns the status and output.
    package func stop(with signal: Int32) async throws -> (status: Int32, output: String, errors: String) {
        kill(process.processIdentifier, signal)
        guard await waitForExit() else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ToolFailure(tool: process.executableURL?.lastPathComponent ?? "", status: -1, message: "did not exit within 60 s of the signal")
        }
        process.waitUntilExit()  // ended: returns at once
        return (process.terminationStatus, output, errors)
    }

    private func watching(_ folder: String) throws -> FolderWatch {
        let watch = try FolderWatch(folder)
        watches.withLock { $0.append(watch) }
        return watch
    }

    private func stopWatching(_ watch: FolderWatch) {
        watches.withLock { $0.removeAll { $0 === watch } }
    }
}
