import ELImage
import Foundation

/// A TCP link on loopback between a client and a server, whose speed a test sets while it runs: a
/// slow network in front of a real server. The client connects to `port`; what it sends goes on
/// to the server at most `bytesPerSecond` (nil: as fast as it comes), what the server sends back
/// passes freely. The link's own buffers are small (8 KiB), so a slow link pushes back on the
/// client within a few kilobytes, as a real one does.
///
/// ```swift
/// let link = try ThrottledLink(to: server.rtmpPort)
/// defer { link.stop() }
/// // stream to rtmp://127.0.0.1:\(link.port)/live/x ...
/// link.bytesPerSecond = 12_500        // 100 kbit/s for a while
/// link.bytesPerSecond = nil           // fast again
/// ```
///
/// Its threads (one accepting, one per connection) end and are joined by `stop()`.
public final class ThrottledLink: Sendable {
    /// The port clients connect to.
    public let port: UInt16
    private let target: UInt16
    private let listener: Int32
    private let rate: Locked<Int?>
    private let forwarded = Locked(0)
    private let relaying = Locked(0)
    private let stopping = Locked(false)
    private let threads = Locked<[JoinableThread]>([])

    /// Listens on a free loopback port, relaying to 127.0.0.1:`target`.
    /// - Throws: `ServerProcess.StartFailure` when no port can be opened.
    public init(to target: UInt16, bytesPerSecond: Int? = nil) throws(ServerProcess.StartFailure) {
        self.target = target
        rate = Locked(bytesPerSecond)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .init(description: "cannot open a socket: \(String(cString: strerror(errno)))") }
        var small: Int32 = 8192
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = ServerProcess.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard ready else {
            let code = errno
            close(descriptor)
            throw .init(description: "cannot listen on a loopback port: \(String(cString: strerror(code)))")
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let acceptor = JoinableThread(name: "ELImageTesting.link", group: nil) { [self] in acceptConnections() }
        do {
            try acceptor.start()
        } catch {
            close(descriptor)
            throw .init(description: "cannot start the link's thread: \(error)")
        }
        threads.withLock { $0.append(acceptor) }
    }

    /// The most bytes a second the client's data goes on at; nil: no limit. Changes apply at once.
    public var bytesPerSecond: Int? {
        get { rate.withLock { $0 } }
        set { rate.withLock { $0 = newValue } }
    }

    /// Bytes relayed from clients to the server so far.
    public var bytesForwarded: Int { forwarded.withLock { $0 } }

    /// Connections being relayed. One ends when its client or the server closes, after what the
    /// client sent before closing has gone on: 0 after a client closed means the server has
    /// everything (wait for it before `stop()`, which cuts connections short).
    public var openConnections: Int { relaying.withLock { $0 } }

    /// Closes the link and its connections, and joins its threads. Idempotent.
    public func stop() {
        let first = stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
        for thread in threads.withLock({ $0 }) { thread.joinBlocking() }
        if first { close(listener) }
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func acceptConnections() {
        while !isStopping {
            var request = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 50) > 0, !isStopping else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = ServerProcess.loopback(port: target)
            let connected = server >= 0 && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard connected else {
                close(client)
                if server >= 0 { close(server) }
                continue
            }
            relaying.withLock { $0 += 1 }
            let thread = JoinableThread(name: "ELImageTesting.link.relay", group: nil) { [self] in
                relay(client: client, server: server)
            }
            if (try? thread.start()) != nil {
                threads.withLock { $0.append(thread) }
            } else {
                relaying.withLock { $0 -= 1 }
                close(client)
                close(server)
            }
        }
    }

    /// Moves bytes both ways until either side closes or the link stops; the client's at the rate.
    private func relay(client: Int32, server: Int32) {
        defer {
            close(client)
            close(server)
            relaying.withLock { $0 -= 1 }
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var sent = 0.0
        var start = ContinuousClock.now
        var limited = bytesPerSecond
        while !isStopping {
            let limit = bytesPerSecond
            if limit != limited {  // a new rate counts from now
                (limited, start, sent) = (limit, .now, 0)
            }
            var allowance = buffer.count
            if let limit {
                let elapsed = Self.seconds(ContinuousClock.now - start)
                allowance = min(buffer.count, Int(Double(limit) * elapsed - sent))
            }
            var requests = [pollfd(fd: server, events: Int16(POLLIN), revents: 0),
                            pollfd(fd: client, events: allowance > 0 ? Int16(POLLIN) : 0, revents: 0)]
            guard poll(&requests, 2, allowance > 0 ? 50 : 5) >= 0 else { return }
            if requests[0].revents != 0 {
                guard move(from: server, to: client, count: buffer.count, buffer: &buffer) > 0 else { return }
            }
            if allowance > 0, requests[1].revents != 0 {
                let moved = move(from: client, to: server, count: allowance, buffer: &buffer)
                guard moved > 0 else { return }
                sent += Double(moved)
                forwarded.withLock { $0 += moved }
            }
        }
    }

    /// Reads at most `count` bytes from `source` and writes them all to `destination`; returns
    /// the bytes moved, 0 or less when either side closed or failed.
    private func move(from source: Int32, to destination: Int32, count: Int, buffer: inout [UInt8]) -> Int {
        buffer.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return -1 }
            let read = Glibc.read(source, base, min(count, bytes.count))
            guard read > 0 else { return -1 }
            var written = 0
            while written < read {
                let result = write(destination, base + written, read - written)
                guard result > 0 else { return -1 }
                written += result
            }
            return read
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
