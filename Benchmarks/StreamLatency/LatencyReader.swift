import Foundation

/// The viewer's side: an ffmpeg that plays the stream from the server with its low-delay
/// settings, writing decoded 8-bit luma pictures into a pipe; each picture's stamp is read as it
/// arrives, with the time.
final class LatencyReader: @unchecked Sendable {
    // @unchecked Sendable: `arrivals` is touched under `lock` only; the process and the thread are
    // set up before the thread starts.
    private let process = Process()
    private let lock = NSLock()
    private var arrivals: [Int: ContinuousClock.Instant] = [:]
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `ffmpeg -i input` (with `inputOptions` before it) for pictures of `stamp`'s size.
    init(input: String, inputOptions: [String], stamp: FrameStamp) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-probesize", "32",
                             "-analyzeduration", "0"] + inputOptions + ["-i", input, "-an", "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray",
                             "-flush_packets", "1", "-"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try process.run()
        let handle = pipe.fileHandleForReading
        let size = stamp.width * stamp.height
        let thread = Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while buffer.count >= size {
                    let now = ContinuousClock.now
                    let number = stamp.read(luma: [UInt8](buffer.prefix(size)))
                    buffer.removeFirst(size)
                    lock.lock()
                    if arrivals[number] == nil { arrivals[number] = now }
                    lock.unlock()
                }
            }
            done.signal()
        }
        self.thread = thread
        thread.start()
    }

    /// When each stamped frame arrived.
    var received: [Int: ContinuousClock.Instant] {
        lock.lock()
        defer { lock.unlock() }
        return arrivals
    }

    private var stopped = false

    /// Stops ffmpeg and waits for the reading thread. Idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        // ffmpeg blocked reading a stream that ended may not see SIGTERM: SIGKILL after 300 ms.
        if process.isRunning { process.terminate() }
        let deadline = Date(timeIntervalSinceNow: 0.3)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        done.wait()
        thread = nil  // its closure holds this reader: the cycle ends with the thread
    }
}
