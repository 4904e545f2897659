import Foundation

/// A private PulseAudio server: its own 0700 runtime folder and socket, the modules you give it,
/// stopped by its PID. Tests and soak runs use it to capture sound without touching the user's
/// server.
///
/// ```swift
/// let server = try PrivateSoundServer.start(modules: ["module-sine-source source_name=sine rate=48000"])
/// defer { server.stop() }
/// let microphone = try PulseAudioCapture(options: .init(device: "sine", server: server.address))   // ELImageMedia
/// ```
///
/// Started with `posix_spawn`, not Foundation's `Process`: pulseaudio closes the descriptors it
/// inherits, which `Process` takes for the child's exit; it then blocks its run-loop thread in
/// `waitpid` and every later `Process` of the program hangs.
public struct PrivateSoundServer: Sendable {
    /// The server's runtime folder (its socket, its log; yours to put files in, such as a pipe).
    public let folder: String
    public let pid: pid_t
    /// `PULSE_SERVER` for clients.
    public var address: String { "unix:" + path("pulse.sock") }

    /// A path in the server's folder.
    public func path(_ name: String) -> String { folder + "/" + name }

    /// Why the server did not start.
    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts pulseaudio with the native protocol on a private socket plus `modules` (each
    /// "module-name arguments"), and waits (up to 10 s) until the socket takes connections.
    /// - Throws: `StartFailure` when pulseaudio is not installed (`make deps` installs it), exits
    ///   (with the end of its log), or does not listen in time.
    public static func start(modules: [String]) throws(StartFailure) -> PrivateSoundServer {
        guard let binary = ["/usr/bin/pulseaudio", "/usr/local/bin/pulseaudio"].first(where: FileManager.default.isExecutableFile) else {
            throw StartFailure(description: "pulseaudio is not installed: `make deps` installs it (Debian package pulseaudio)")
        }
        var template = Array((FileManager.default.temporaryDirectory.path + "/elimage-sound-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw StartFailure(description: "cannot make a folder for the sound server: \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)  // mkdtemp makes it 0700, as pulseaudio wants its runtime folder
        let socket = folder + "/pulse.sock"
        let arguments = [binary, "--daemonize=no", "--exit-idle-time=-1", "-n", "--use-pid-file=no", "-F", "/dev/null", "--system=no",
                         "--load=module-native-protocol-unix auth-anonymous=1 socket=\(socket)"] + modules.map { "--load=" + $0 }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = folder
        environment["HOME"] = folder
        let log = folder + "/log"
        let pid: pid_t
        do {
            pid = try spawn(binary, arguments: arguments, environment: environment, errorLog: log)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        let server = PrivateSoundServer(folder: folder, pid: pid)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                try? FileManager.default.removeItem(atPath: folder)
                throw StartFailure(description: "pulseaudio exited (status \(status)): \(text.suffix(600))")
            }
            if acceptsConnections(socket) { return server }
            usleep(10_000)  // the socket appears when the protocol module binds it
        }
        server.stop()
        throw StartFailure(description: "pulseaudio did not listen on \(socket) within 10 s")
    }

    /// Stops the server by its PID (SIGTERM, SIGKILL after 5 s), reaps it and removes its folder.
    public func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(5)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(10_000)
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func spawn(_ binary: String, arguments: [String], environment: [String: String],
                              errorLog: String) throws(StartFailure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, binary, &actions, nil, &argv, &envp)
        guard status == 0 else { throw StartFailure(description: "cannot start pulseaudio: \(String(cString: strerror(status)))") }
        return pid
    }

    /// True when a Unix socket at `path` accepts a connection.
    private static func acceptsConnections(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
