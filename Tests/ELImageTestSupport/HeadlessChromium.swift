import ELImageTesting
import Foundation

/// Chromium without a window (`--headless`), opening one page as a viewer would: a test's
/// browser. The page reports with `console.log("report …")`; Chromium writes each console line
/// to its log, where `open` reads them. Its own profile folder, stopped by its PID.
package enum HeadlessChromium {
    /// Opens `url` and returns the lines the page logged after `report ` (in order) once
    /// `finished` accepts one of them, or when `timeout` has passed (the lines so far).
    /// - Throws: `ServerFailure` when Chromium is not installed or does not start.
    package static func open(_ url: String, timeout: Duration = .seconds(60),
                             until finished: (String) -> Bool) async throws -> [String] {
        let binary: String
        do {
            binary = try ServerProcess.binary(["/usr/bin/chromium", "/usr/bin/chromium-browser"], package: "chromium")
        } catch {
            throw ServerFailure("\(error) (`make test-long` installs it)")
        }
        let folder = try ServerProcess.makeFolder("elimage-chromium")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = folder + "/chromium.log"
        // No sandbox (tests may run as root), no GPU process, sound muted, playback without a click;
        // its home is the folder, so everything it writes (profile, crash reports) goes there.
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder
        environment["XDG_CONFIG_HOME"] = folder + "/config"
        environment["XDG_CACHE_HOME"] = folder + "/cache"
        let pid = try ServerProcess.spawn(binary, arguments: [
            "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--mute-audio", "--no-first-run",
            "--disable-crash-reporter", "--autoplay-policy=no-user-gesture-required", "--user-data-dir=\(folder)/profile",
            "--enable-logging=stderr", "--v=0", url,
        ], environment: environment, errorLog: log)
        defer {
            ServerProcess.stop(pid)
            // Its helpers (zygote, renderer) notice and quit on their own: wait for them.
            Self.waitUntilGone(commandLineContaining: folder)
        }
        let deadline = ContinuousClock.now + timeout
        var reports: [String] = []
        while ContinuousClock.now < deadline {
            reports = Self.reports(in: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            if reports.contains(where: finished) { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        return reports
    }

    /// Waits (at most 10 s) until no process's command line contains `text`.
    static func waitUntilGone(commandLineContaining text: String) {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            let running = processes.contains { name in
                guard name.allSatisfy(\.isNumber), let line = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return false }
                return String(decoding: line, as: UTF8.self).contains(text)
            }
            if !running { return }
            usleep(100_000)
        }
    }

    /// The console lines `"report …"` of a Chromium log, without the prefix.
    static func reports(in log: String) -> [String] {
        log.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.contains(":CONSOLE"), let start = line.range(of: "\"report ") else { return nil }
            let rest = line[start.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
    }
}
