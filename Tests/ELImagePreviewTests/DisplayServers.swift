import ELImage
import ELImageTestSupport
import Foundation

/// A private display server started by a test: Xvfb or headless weston, stopped by its PID.
/// When the server's program is missing the test fails with the reason (it never skips).
final class DisplayServer: @unchecked Sendable {
    // @unchecked Sendable: set once in init, then only read.
    enum Kind { case xvfb, weston }

    let kind: Kind
    /// ":N" for Xvfb, the socket name for weston.
    let name: String
    /// Weston's private XDG_RUNTIME_DIR (0700); for Xvfb unused.
    let runtimeFolder: TemporaryFolder
    private let process: Process

    static let width = 1280, height = 720

    /// Starts the server and waits until it takes connections. `scale`: weston's output scale
    /// factor (a HiDPI screen: at 2, 2560x1440 pixels for the same 1280x720 logical size).
    init(_ kind: Kind, scale: Int = 1) async throws {
        self.kind = kind
        runtimeFolder = try TemporaryFolder()
        chmod(runtimeFolder.url.path, 0o700)
        let process = Process()
        let log = runtimeFolder.path("server.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        switch kind {
        case .xvfb:
            let executable = "/usr/bin/Xvfb"
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                throw ServerFailure("\(executable) is missing: apt-get install xvfb (make deps installs it)")
            }
            // -displayfd: Xvfb picks a free display number and writes it to standard output.
            let numberPipe = Pipe()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["-displayfd", "1", "-screen", "0", "\(Self.width)x\(Self.height)x24", "-nolisten", "tcp"]
            process.standardOutput = numberPipe
            try process.run()
            let number = try Self.readLine(numberPipe.fileHandleForReading, deadline: 20)
            guard let number, Int(number) != nil else {
                process.terminate()
                process.waitUntilExit()
                throw ServerFailure("Xvfb did not say its display number: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            }
            name = ":\(number)"
        case .weston:
            let executable = "/usr/bin/weston"
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                throw ServerFailure("\(executable) is missing: apt-get install weston (make deps installs it)")
            }
            name = "elimage-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--backend=headless-backend.so", "--use-pixman", "--width=\(Self.width)",
                                 "--height=\(Self.height)", "--socket=\(name)", "--shell=desktop-shell.so",
                                 "--debug", "--idle-time=0", "--scale=\(scale)"]
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtimeFolder.url.path
            environment.removeValue(forKey: "WAYLAND_DISPLAY")
            environment.removeValue(forKey: "DISPLAY")
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            // The socket's creation in the runtime folder is the event; weston's log changes if it fails.
            let watch = try FolderWatch(runtimeFolder.url.path)
            try process.run()
            let socket = runtimeFolder.path(name)
            _ = await watch.wait(timeout: .seconds(20)) { FileManager.default.fileExists(atPath: socket) || !process.isRunning }
            guard FileManager.default.fileExists(atPath: socket) else {
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                throw ServerFailure("weston did not open \(socket): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            }
        }
        self.process = process
    }

    /// The environment a client of this server needs (for programs started by the test).
    var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        switch kind {
        case .xvfb: environment["DISPLAY"] = name
        case .weston:
            environment["WAYLAND_DISPLAY"] = name
            environment["XDG_RUNTIME_DIR"] = runtimeFolder.url.path
        }
        return environment
    }

    /// The whole screen as tightly packed RGB, first row first: `xwd -root` or `weston-screenshooter`,
    /// decoded by ffmpeg.
    func screenshot() throws -> [UInt8] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let image: String
        switch kind {
        case .xvfb:
            // Through a file: ffmpeg's xwd_pipe reader finds no stream in a pipe.
            image = folder.path("screen.xwd")
            try runTool("xwd", ["-root", "-silent", "-display", name, "-out", image])
        case .weston:
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/weston-screenshooter")
            process.currentDirectoryURL = folder.url
            process.environment = clientEnvironment
            try process.run()
            process.waitUntilExit()
            let shots = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".png") }
            guard process.terminationStatus == 0, let shot = shots.first else {
                throw ServerFailure("weston-screenshooter exited \(process.terminationStatus) and wrote no PNG")
            }
            image = folder.path(shot)
        }
        return try runTool("ffmpeg", ["-v", "error", "-i", image, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            .withUnsafeBytes { Array($0) }
    }

    /// The id of the first visible window whose title contains `title` (X11, xdotool), waiting up
    /// to two minutes while `alive()` holds (generous: on a loaded 2-core machine a debug build
    /// takes long to show its first frame).
    func window(titled title: String, while alive: () -> Bool = { true }) async throws -> String? {
        let deadline = Date().addingTimeInterval(120)
        while alive(), Date() < deadline {
            let found = try? runTool("env", ["DISPLAY=\(name)", "xdotool", "search", "--onlyvisible", "--name", title])
            if let id = found.flatMap({ String(decoding: $0, as: UTF8.self).split(separator: "\n").first }) { return String(id) }
            try await Task.sleep(for: .milliseconds(200))
        }
        return nil
    }

    /// Types `key` into `window` (X11, xdotool).
    func press(_ key: String, in window: String) throws {
        try runTool("env", ["DISPLAY=\(name)", "xdotool", "key", "--window", window, key])
    }

    /// Stops the server by its PID and waits for it. SIGKILL: a child of the test process starts
    /// with SIGTERM blocked (the mask of the thread that spawned it), so SIGTERM would never arrive.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if kind == .xvfb {
            let number = name.dropFirst()
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
        }
        runtimeFolder.remove()
    }

    private static func readLine(_ handle: FileHandle, deadline seconds: Double) throws -> String? {
        var bytes: [UInt8] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            var pollDescriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&pollDescriptor, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(handle.fileDescriptor, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}
