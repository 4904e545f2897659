import ELImage
import Foundation

/// A private nginx for live-streaming tests: an RTMP server (nginx's RTMP module) whose
/// application `live` records every stream it receives (`record all`, one FLV file per publish,
/// `closedRecordings` counting those nginx has finished),
/// the same server behind TLS (RTMPS: nginx's stream module with a self-signed certificate made
/// for it), and an HTTP server on a folder for HLS. Its own folder and configuration, loopback ports,
/// stopped by its PID; it can be killed and started again on the same ports (a server that goes
/// away and comes back), and paused (SIGSTOP: a link that stops carrying data).
///
/// ```swift
/// let server = try PrivateStreamingServer.start()
/// defer { server.stop() }
/// try encoder.start(streamingTo: StreamTarget(server.rtmpURL(stream: "test"))!)
/// ...
/// let files = server.recordings()   // what arrived, as FLV
/// ```
public final class PrivateStreamingServer: Sendable {
    /// The server's folder: its configuration, logs, `recordings/` and `www/`.
    public let folder: String
    public let rtmpPort: UInt16
    /// The TLS port in front of `rtmpPort` (RTMPS).
    public let rtmpsPort: UInt16
    public let httpPort: UInt16
    private let binary: String
    private let process: Locked<pid_t?>

    /// The RTMP address of `stream` in the application `live`.
    public func rtmpURL(stream: String) -> String { "rtmp://127.0.0.1:\(rtmpPort)/live/\(stream)" }
    /// The RTMPS address of `stream` (TLS with a self-signed certificate: FFmpeg does not verify
    /// certificates unless told to).
    public func rtmpsURL(stream: String) -> String { "rtmps://127.0.0.1:\(rtmpsPort)/live/\(stream)" }
    /// The folder the HTTP server serves (`http://127.0.0.1:httpPort/NAME` is `www/NAME`).
    public var webFolder: String { folder + "/www" }
    /// The HTTP address of `name` in `webFolder`.
    public func httpURL(_ name: String) -> String { "http://127.0.0.1:\(httpPort)/\(name)" }

    /// Starts nginx with the RTMP and stream modules on three free loopback ports and waits until
    /// they listen.
    /// - Throws: `ServerProcess.StartFailure` when nginx, its modules or openssl are not installed
    ///   (`make deps`: nginx-light, libnginx-mod-rtmp, libnginx-mod-stream, openssl), or it does
    ///   not start (with its log).
    public static func start() throws(ServerProcess.StartFailure) -> PrivateStreamingServer {
        let binary = try ServerProcess.binary(["/usr/sbin/nginx", "/usr/local/sbin/nginx"], package: "nginx-light")
        let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so", streamModule = "/usr/lib/nginx/modules/ngx_stream_module.so"
        for (path, package) in [(module, "libnginx-mod-rtmp"), (streamModule, "libnginx-mod-stream")]
        where !FileManager.default.fileExists(atPath: path) {
            throw .init(description: "\(path) is not installed: `make deps` installs it (Debian package \(package))")
        }
        let openssl = try ServerProcess.binary(["/usr/bin/openssl"], package: "openssl")
        let folder = try ServerProcess.makeFolder("elimage-nginx")
        for sub in ["recordings", "www", "temp", "logs"] {
            try? FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        try makeCertificate(in: folder, openssl: openssl)
        // Different ports: single choices could be the same port, and nginx would then hand RTMP
        // connections to its HTTP server.
        let ports = try ServerProcess.freePorts(3)
        let server = PrivateStreamingServer(folder: folder, rtmpPort: ports[0], rtmpsPort: ports[2], httpPort: ports[1], binary: binary)
        let configuration = """
            load_module \(module);
            load_module \(streamModule);
            daemon off;
            master_process off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/logs/error.log info;
            events { worker_connections 128; }
            rtmp {
                server {
                    listen 127.0.0.1:\(server.rtmpPort);
                    chunk_size 4096;
                    application live {
                        live on;
                        record all;
                        record_path \(folder)/recordings;
                        record_unique on;
                        exec_record_done /usr/bin/touch $path.closed;
                    }
                }
            }
            stream {
                server {
                    listen 127.0.0.1:\(server.rtmpsPort) ssl;
                    ssl_certificate \(folder)/cert.pem;
                    ssl_certificate_key \(folder)/key.pem;
                    proxy_pass 127.0.0.1:\(server.rtmpPort);
                }
            }
            http {
                access_log off;
                client_body_temp_path \(folder)/temp/body;
                proxy_temp_path \(folder)/temp/proxy;
                fastcgi_temp_path \(folder)/temp/fastcgi;
                uwsgi_temp_path \(folder)/temp/uwsgi;
                scgi_temp_path \(folder)/temp/scgi;
                types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/mp4 mp4 m4s; text/html html; }
                server {
                    listen 127.0.0.1:\(server.httpPort);
                    root \(folder)/www;
                }
            }
            """
        do {
            try configuration.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        } catch {
            throw .init(description: "cannot write \(folder)/nginx.conf: \(error)")
        }
        do {
            try server.startProcess()
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        return server
    }

    /// A self-signed certificate for 127.0.0.1 (`cert.pem`, `key.pem`), valid for two days.
    private static func makeCertificate(in folder: String, openssl: String) throws(ServerProcess.StartFailure) {
        let log = folder + "/logs/openssl"
        let pid = try ServerProcess.spawn(openssl, arguments: [
            openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
            "-days", "2", "-subj", "/CN=127.0.0.1"], errorLog: log)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0, FileManager.default.fileExists(atPath: folder + "/cert.pem") else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw .init(description: "openssl could not make a certificate (status \(status)): \(text.suffix(400))")
        }
    }

    private init(folder: String, rtmpPort: UInt16, rtmpsPort: UInt16, httpPort: UInt16, binary: String) {
        self.folder = folder
        self.rtmpPort = rtmpPort
        self.rtmpsPort = rtmpsPort
        self.httpPort = httpPort
        self.binary = binary
        process = Locked(nil)
    }

    private func startProcess() throws(ServerProcess.StartFailure) {
        let log = folder + "/logs/stderr"
        let pid = try ServerProcess.spawn(binary, arguments: [binary, "-p", folder, "-c", folder + "/nginx.conf", "-e", folder + "/logs/error.log"],
                                          errorLog: log)
        let (rtmp, rtmps, http) = (rtmpPort, rtmpsPort, httpPort)
        try ServerProcess.waitUntilReady(pid, name: "nginx", log: log) {
            ServerProcess.acceptsTCP(port: rtmp) && ServerProcess.acceptsTCP(port: rtmps) && ServerProcess.acceptsTCP(port: http)
        }
        process.withLock { $0 = pid }
    }

    /// Kills nginx at once (SIGKILL: connections break without a goodbye), as a crashed or
    /// unplugged server would; `restart()` brings it back on the same ports.
    public func kill() {
        guard let pid = process.withLock({ current in defer { current = nil }; return current }) else { return }
        ServerProcess.stop(pid, signal: SIGKILL)
    }

    /// Starts nginx again after `kill()`, on the same ports and folder.
    public func restart() throws(ServerProcess.StartFailure) {
        kill()
        try startProcess()
    }

    /// Stops nginx reading and sending (SIGSTOP): the connections stay open and fill up, as on a
    /// link that stalls. `resume()` lets it go on.
    public func pause() {
        if let pid = process.withLock({ $0 }) { Foundation.kill(pid, SIGSTOP) }
    }

    public func resume() {
        if let pid = process.withLock({ $0 }) { Foundation.kill(pid, SIGCONT) }
    }

    /// The FLV files nginx recorded, one per publish, oldest first (`record_unique` names them
    /// STREAM-UNIXTIME.flv).
    public func recordings() -> [String] {
        let directory = folder + "/recordings"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        func time(_ name: String) -> Int { Int(name.dropLast(4).split(separator: "-").last ?? "") ?? 0 }
        return names.filter { $0.hasSuffix(".flv") }.sorted { (time($0), $0) < (time($1), $1) }.map { directory + "/" + $0 }
    }

    /// The recordings nginx has closed: it closes one when the publish's connection has ended and
    /// it has read everything sent on it. Wait for this before `stopKeepingFiles()` to compare what
    /// arrived with what was sent: a stop cuts short what nginx has received but not yet read.
    /// A recording cut by `kill()` is never closed.
    public var closedRecordings: Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/recordings")) ?? []
        return names.filter { $0.hasSuffix(".flv.closed") }.count
    }

    /// Stops nginx (SIGTERM: it closes its recordings), reaps it and removes its folder.
    public func stop() {
        stopKeepingFiles()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Stops nginx as `stop()` does, keeping its folder (to read the recordings after).
    public func stopKeepingFiles() {
        if let pid = process.withLock({ current in defer { current = nil }; return current }) {
            Foundation.kill(pid, SIGCONT)
            ServerProcess.stop(pid, signal: SIGTERM)
        }
    }
}
