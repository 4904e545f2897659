import ELImage
import Glibc

/// Writes a `VirtualCamera`'s frames to its device, on the sink's writer thread: negotiates at
/// the first frame, and when the device fails or goes away, drops frames and reopens it (after
/// 0, 0.25, 0.5, 1 then every 2 s) until it is back, with whatever format it then has.
final class VirtualCameraWriter: FrameWriter {
    private let link: VirtualCameraLink
    private var stream: V4L2OutputStream?
    private var everConnected = false
    private var lostAt: ContinuousClock.Instant?
    private var nextAttempt = ContinuousClock.now
    private var backoff = Duration.zero

    init(link: VirtualCameraLink) {
        self.link = link
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        guard let stream = try connectedStream(for: buffer) else {
            link.count { $0.droppedDisconnected += 1 }
            return .more
        }
        let mode = stream.mode
        guard mode.pixelFormat == buffer.format, mode.width == buffer.width, mode.height == buffer.height else {
            link.count { $0.droppedReconfiguring += 1 }
            return .more
        }
        do {
            // At most two frame intervals for the driver to give a buffer back, then the frame goes.
            let wait = Int32(min(max(2 * mode.interval.seconds * 1000, 10), 200))
            if try stream.write(buffer, frame: number, waitingAtMost: wait) {
                link.count { $0.framesWritten += 1 }
            } else {
                link.count { $0.droppedNoBuffer += 1 }
            }
        } catch {
            lose(error)
            link.count { $0.droppedDisconnected += 1 }
        }
        return .more
    }

    /// The open stream, or a new one when it is time to try (nil while the device is away).
    /// - Throws: the first negotiation's failure (a device ELImage cannot write, busy), or the
    ///   last failure once the device has been away longer than the reconnect window.
    private func connectedStream(for buffer: PixelBuffer) throws -> V4L2OutputStream? {
        if let stream { return stream }
        let now = ContinuousClock.now
        if let lostAt, let window = link.settings.reconnectWindow, now - lostAt >= window {
            throw ELImageError.io(
                file: link.path, operation: "write to the virtual camera", errno: ENODEV,
                hint: "the device was away for more than \(window) (last: \(link.statistics.lastError.map { "\($0)" } ?? "unknown")); "
                    + "check it with `elimage devices`, or allow longer (VirtualCameraSettings.reconnectWindow, --reconnect-for)")
        }
        guard now >= nextAttempt else { return nil }
        do {
            let device = try link.takeOpenedDevice() ?? V4L2OutputStream.openDevice(path: link.path, io: link.io).device
            let size = link.wantedSize(fallback: (buffer.width, buffer.height))
            let opened = try V4L2OutputStream.start(on: device, settings: link.settings, width: size.width, height: size.height)
            stream = opened
            lostAt = nil
            backoff = .zero
            link.connected(opened.mode, again: everConnected)
            everConnected = true
            return opened
        } catch {
            let failure = error as? ELImageError ?? .invalidState(node: link.path, reason: "\(error)")
            guard everConnected else { throw failure }  // the first negotiation decides whether this device works at all
            link.failedToReopen(failure)
            backoff = min(max(backoff * 2, .milliseconds(250)), .seconds(2))
            nextAttempt = now + backoff
            return nil
        }
    }

    private func lose(_ error: Error) {
        stream?.close()
        stream = nil
        lostAt = .now
        nextAttempt = .now  // the next frame tries at once: a reconfigured device is usually back
        backoff = .zero
        link.lost(error as? ELImageError ?? .invalidState(node: link.path, reason: "\(error)"))
    }

    /// Stops the stream and closes the device (consumers see the writer go).
    func finish() throws { close() }
    func publish() throws {}
    func salvage(after error: ELImageError) { close() }
    func discard() { close() }

    private func close() {
        stream?.close()
        stream = nil
    }
}
