import Foundation

/// A private SRT listener for tests: `srt-live-transmit` (srt-tools) listening on a loopback UDP
/// port, writing the MPEG-TS it receives into a file, stopped by its PID.
///
/// ```swift
/// let listener = try PrivateSRTListener.start()
/// defer { listener.stop() }
/// try encoder.start(streamingTo: StreamTarget(listener.url)!)
/// ...
/// listener.stop()   // then read listener.received
/// ```
public struct PrivateSRTListener: Sendable {
    public let folder: String
    public let port: UInt16
    public let pid: pid_t
    /// The caller's address.
    public var url: String { "srt://127.0.0.1:\(port)" }
    /// The file the listener writes what it receives into.
    public var received: String { folder + "/received.ts" }

    /// Starts `srt-live-transmit` listening on `port` (a free loopback port when nil: a listener
    /// started again after one was killed takes the same one) with a receive latency of
    /// `latency` (SRT's default, 120 ms, when nil) and waits until it is bound.
    /// - Throws: `ServerProcess.StartFailure` when srt-tools is not installed (`make deps`), or it
    ///   does not start (with its log).
    public static func start(port chosen: UInt16? = nil, latency: Duration? = nil) throws(ServerProcess.StartFailure) -> PrivateSRTListener {
        let binary = try ServerProcess.binary(["/usr/bin/srt-live-transmit", "/usr/local/bin/srt-live-transmit"], package: "srt-tools")
        let folder = try ServerProcess.makeFolder("elimage-srt")
        let port: UInt16
        if let chosen { port = chosen } else { port = try ServerProcess.freePort(udp: true) }
        let log = folder + "/log"
        let latencyParameter = latency.map { "&latency=\($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)" } ?? ""
        let pid: pid_t
        do {
            // -a:no: the listener ends when its caller disconnects (one stream, one file).
            pid = try ServerProcess.spawn(binary, arguments: [binary, "-q", "-a:no", "srt://127.0.0.1:\(port)?mode=listener\(latencyParameter)", "file://con"],
                                          output: folder + "/received.ts", errorLog: log)
            try ServerProcess.waitUntilReady(pid, name: "srt-live-transmit", log: log) { ServerProcess.usesUDP(port: port) }
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        return PrivateSRTListener(folder: folder, port: port, pid: pid)
    }

    /// Stops the listener (SIGINT: it flushes what it received into its file) and reaps it; the
    /// folder stays for `received` until `removeFiles()`.
    public func stop() {
        ServerProcess.stop(pid, signal: SIGINT)
    }

    /// Kills the listener at once (SIGKILL), as a crashed server; what it received so far stays.
    public func kill() {
        ServerProcess.stop(pid, signal: SIGKILL)
    }

    public func removeFiles() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
