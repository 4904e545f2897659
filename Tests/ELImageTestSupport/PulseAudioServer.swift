import Dispatch
import ELImageMedia
import Foundation
import Testing

/// A private PulseAudio server for a test: its own 0700 runtime folder and socket, a null sink
/// (`nullsink`, whose `nullsink.monitor` is paced in real time) and a 440 Hz sine source (`sine`,
/// delivered in bursts). Stopped by its PID with `stop()`.
///
/// Started with `posix_spawn`, not Foundation's `Process`: pulseaudio closes the descriptors it
/// inherits, which `Process` takes for the child's exit; it then blocks its run-loop thread in
/// `waitpid` and every later `Process` of the test bundle hangs.
package struct PulseAudioServer {
    package let folder: TemporaryFolder
    package let pid: pid_t
    /// `PULSE_SERVER` for clients.
    package var address: String { "unix:" + folder.path("pulse.sock") }

    /// Starts the server and waits (up to 10 s) until it answers.
    /// - Throws: when `pulseaudio` is not installed (the test fails with that reason) or does not start.
    package static func start() async throws -> PulseAudioServer {
        guard let binary = ["/usr/bin/pulseaudio", "/usr/local/bin/pulseaudio"].first(where: FileManager.default.isExecutableFile) else {
            throw ServerFailure("pulseaudio is not installed: `make deps` installs it (Debian package pulseaudio)")
        }
        let folder = try TemporaryFolder()
        chmod(folder.url.path, 0o700)
        let arguments = [binary, "--daemonize=no", "--exit-idle-time=-1", "-n", "--use-pid-file=no", "-F", "/dev/null", "--system=no",
                         "--load=module-native-protocol-unix auth-anonymous=1 socket=\(folder.path("pulse.sock"))",
                         "--load=module-null-sink sink_name=nullsink",
                         "--load=module-sine-source source_name=sine rate=48000 frequency=440"]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = folder.url.path
        environment["HOME"] = folder.url.path
        let log = folder.path("log")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, binary, &actions, nil, &argv, &envp)
        guard status == 0 else { throw ServerFailure("cannot start pulseaudio: \(String(cString: strerror(status)))") }
        let server = PulseAudioServer(folder: folder, pid: pid)
        // The socket appears when the protocol module binds it (an inotify event). The log changes
        // if the server fails.
        let deadline = ContinuousClock.now + .seconds(10)
        var exitStatus: Int32 = 0
        let exited = { waitpid(pid, &exitStatus, WNOHANG) == pid }
        let watch = try FolderWatch(folder.url.path)
        var ended = false
        let bound = await watch.wait(timeout: .seconds(10)) {
            ended = ended || exited()
            return ended || FileManager.default.fileExists(atPath: folder.path("pulse.sock"))
        }
        if ended {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            folder.remove()
            throw ServerFailure("pulseaudio exited (status \(exitStatus)): \(text.suffix(600))")
        }
        // Bound is not yet answering: the socket listens, and the server's loop runs, a moment
        // later (a state with no event to wait on, so it is asked again until the deadline).
        let answers = await waitUntil(timeout: max(.zero, deadline - ContinuousClock.now)) {
            (try? AudioDevices.list(server: server.address)) != nil
        }
        guard bound, answers else {
            server.stop()
            throw ServerFailure("pulseaudio did not answer on \(server.address) within 10 s")
        }
        return server
    }

    /// Stops the server by its PID (SIGTERM, SIGKILL after 5 s), reaps it and removes its folder.
    package func stop() {
        kill(pid, SIGTERM)
        let reaped = DispatchSemaphore(value: 0)
        let pid = pid
        Thread.detachNewThread {
            var exitStatus: Int32 = 0
            waitpid(pid, &exitStatus, 0)  // its exit is the event
            reaped.signal()
        }
        if reaped.wait(timeout: .now() + 5) == .timedOut {
            kill(pid, SIGKILL)
            reaped.wait()
        }
        folder.remove()
    }

    package struct ServerFailure: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }
}
