import Foundation

/// What the private servers of tests and benchmarks share: a private folder, a child started with
/// `posix_spawn` (its output into a log in that folder), waiting until it listens, a free
/// loopback port, and stopping it by its PID.
///
/// `posix_spawn`, not Foundation's `Process`: some servers (pulseaudio) close the descriptors
/// they inherit, which `Process` takes for the child's exit; it then blocks its run-loop thread in
/// `waitpid` and every later `Process` of the program hangs.
public enum ServerProcess {
    /// Why a server did not start.
    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// A new 0700 folder under the temporary directory, named `prefix-XXXXXX`.
    public static func makeFolder(_ prefix: String) throws(StartFailure) -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw StartFailure(description: "cannot make a folder for \(prefix): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// The first of `candidates` that is an executable file, or a failure naming the package
    /// that installs it.
    public static func binary(_ candidates: [String], package: String) throws(StartFailure) -> String {
        guard let found = candidates.first(where: FileManager.default.isExecutableFile) else {
            throw StartFailure(description: "\(candidates[0]) is not installed: `make deps` installs it (Debian package \(package))")
        }
        return found
    }

    /// Starts `binary` with `arguments` (the first is the program's name) and `environment`;
    /// standard input from /dev/null, standard output into `output` (or /dev/null), standard
    /// error into `errorLog`.
    public static func spawn(_ binary: String, arguments: [String], environment: [String: String]? = nil,
                             output: String? = nil, errorLog: String) throws(StartFailure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var argv = arguments.map { strdup($0) } + [nil]
        let variables = environment ?? ProcessInfo.processInfo.environment
        var envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child starts with no signal blocked: a test runner's thread may block SIGTERM (signal
        // handling libraries do), and a server that inherited that mask would ignore `stop()` until
        // it is killed. (Ignored signals stay ignored, as exec keeps them.)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, binary, &actions, &attributes, &argv, &envp)
        guard status == 0 else {
            throw StartFailure(description: "cannot start \(binary): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Waits (up to `timeout`) until `ready()`; fails with the end of `log` when the child exits
    /// first, and stops it when it is not ready in time.
    public static func waitUntilReady(_ pid: pid_t, name: String, log: String, timeout: Duration = .seconds(10),
                                      ready: () -> Bool) throws(StartFailure) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw StartFailure(description: "\(name) exited (status \(status)): \(text.suffix(600))")
            }
            if ready() { return }
            usleep(10_000)
        }
        stop(pid)
        throw StartFailure(description: "\(name) was not ready within \(timeout)")
    }

    /// Stops `pid` (`signal`, then SIGKILL after 5 s) and reaps it.
    public static func stop(_ pid: pid_t, signal: Int32 = SIGTERM) {
        kill(pid, signal)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(5)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return
            }
            usleep(10_000)
        }
    }

    /// A loopback port nothing listens on now (the system's choice for a socket bound to port 0).
    public static func freePort(udp: Bool = false) throws(StartFailure) -> UInt16 {
        try freePorts(1, udp: udp)[0]
    }

    /// `count` different loopback ports nothing listens on now: each is held until all are chosen,
    /// so the system cannot hand out one of them twice.
    public static func freePorts(_ count: Int, udp: Bool = false) throws(StartFailure) -> [UInt16] {
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        var ports: [UInt16] = []
        for _ in 0..<count {
            let (descriptor, port) = try boundPort(udp: udp)
            held.append(descriptor)
            ports.append(port)
        }
        return ports
    }

    /// A socket bound to a loopback port of the system's choice, and the port.
    private static func boundPort(udp: Bool) throws(StartFailure) -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw StartFailure(description: "cannot open a socket: \(String(cString: strerror(errno)))") }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            let code = errno
            close(descriptor)
            throw StartFailure(description: "cannot find a free port: \(String(cString: strerror(code)))")
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// True when a TCP connection to 127.0.0.1:`port` succeeds.
    public static func acceptsTCP(port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// True when a UDP socket is bound to 127.0.0.1:`port` (binding it here fails).
    public static func usesUDP(port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) != 0 }
        }
    }

    /// 127.0.0.1:`port`.
    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
