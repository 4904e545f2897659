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
/// Started with `posix_spawn` (`ServerProcess`): pulseaudio closes the descriptors it inherits.
public struct PrivateSoundServer: Sendable {
    /// The server's runtime folder (its socket, its log; yours to put files in, such as a pipe).
    public let folder: String
    public let pid: pid_t
    /// `PULSE_SERVER` for clients.
    public var address: String { "unix:" + path("pulse.sock") }

    /// A path in the server's folder.
    public func path(_ name: String) -> String { folder + "/" + name }

    /// Why the server did not start.
    public typealias StartFailure = ServerProcess.StartFailure

    /// Starts pulseaudio with `modules` (each "module-name arguments") plus the native protocol on
    /// a private socket, and waits (up to 10 s) until the socket takes connections, by which time
    /// the modules are loaded.
    /// - Throws: `StartFailure` when pulseaudio is not installed (`make deps` installs it), exits
    ///   (with the end of its log), or does not listen in time.
    public static func start(modules: [String]) throws(StartFailure) -> PrivateSoundServer {
        let binary = try ServerProcess.binary(["/usr/bin/pulseaudio", "/usr/local/bin/pulseaudio"], package: "pulseaudio")
        let folder = try ServerProcess.makeFolder("elimage-sound")  // 0700, as pulseaudio wants its runtime folder
        let socket = folder + "/pulse.sock"
        // pulseaudio loads the modules in order: the protocol goes last, so a socket that takes
        // connections means every module before it is loaded (a pipe source's FIFO exists).
        let arguments = [binary, "--daemonize=no", "--exit-idle-time=-1", "-n", "--use-pid-file=no", "-F", "/dev/null", "--system=no"]
            + modules.map { "--load=" + $0 } + ["--load=module-native-protocol-unix auth-anonymous=1 socket=\(socket)"]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = folder
        environment["HOME"] = folder
        let log = folder + "/log"
        let pid: pid_t
        do {
            pid = try ServerProcess.spawn(binary, arguments: arguments, environment: environment, errorLog: log)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        do {
            // The socket appears when the protocol module binds it.
            try ServerProcess.waitUntilReady(pid, name: "pulseaudio", log: log) { acceptsConnections(socket) }
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        return PrivateSoundServer(folder: folder, pid: pid)
    }

    /// Stops the server by its PID (SIGTERM, SIGKILL after 5 s), reaps it and removes its folder.
    public func stop() {
        ServerProcess.stop(pid)
        try? FileManager.default.removeItem(atPath: folder)
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
