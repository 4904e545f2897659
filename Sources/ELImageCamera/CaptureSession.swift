import CV4L2
import ELImage
import Foundation
import Synchronization

/// What one wait on a device brought (`CaptureSession.capture`).
struct CaptureStep {
    /// The newest good frame, copied out of its driver buffer (already requeued): the buffer's
    /// monotonic timestamp in microseconds and the driver's frame counter.
    var frame: (buffer: PixelBuffer, microseconds: Int64, sequence: UInt32)?
    /// Older frames that were ready with it and were requeued unused, oldest first.
    var discarded: [(microseconds: Int64, sequence: UInt32)] = []
    /// Damaged frames (driver error flag, too short, undecodable), with the error when there is one.
    var damaged: [ELImageError?] = []
    /// A fatal failure, after the frame if there is one: the session can capture no more.
    var failure: ELImageError?
    /// True when the wait ended with nothing ready.
    var timedOut = false
}

/// One device streaming in one mode: the open device and its mmap buffers.
///
/// `prepare` opens and configures the device and queues the buffers; `streamOn` starts the driver;
/// `capture` waits one slice for frames (called by one thread at a time: the camera's producer),
/// copies the newest out of its buffer and requeues every buffer at once; `release` stops the
/// driver and frees everything.
final class CaptureSession: Sendable {
    let device: CameraDevice
    let choice: CaptureModeChoice
    var mode: CaptureMode { choice.mode }
    let settings: CaptureSettings
    /// The driver buffers, read only by `capture` (while a buffer is dequeued) and unmapped by
    /// `release()` once the producer gave the session up.
    private let buffers: MappedBuffers
    private let released = Atomic<Bool>(false)

    /// The poll slice: how quickly a stop, restart or switch gets the session.
    static let pollSlice: Duration = .milliseconds(50)
    /// Extra time the first frame of a session may take, beyond the stall timeout.
    static let startupGrace: Duration = .seconds(3)

    private init(device: CameraDevice, choice: CaptureModeChoice, settings: CaptureSettings, buffers: MappedBuffers) {
        self.device = device
        self.choice = choice
        self.settings = settings
        self.buffers = buffers
    }

    // MARK: Setting up

    /// Opens `path`, chooses and sets the mode, allocates, maps and queues the buffers.
    /// - Throws: `ELImageError` naming the device, the step and the errno.
    static func prepare(path: String, settings: CaptureSettings, io: any VideoDeviceIO) throws -> CaptureSession {
        let device = try CameraDevice(path: path, io: io)
        var mapped: MappedBuffers?
        do {
            let info = try device.info()
            guard info.isCaptureDevice else {
                throw DeviceErrors.unsupported(
                    path: path, what: "'\(info.card)' is not a streaming video capture device (it offers: \(info.capabilities))",
                    hint: "UVC cameras create a second node for metadata; pick the other /dev/video node")
            }
            let candidate = try CaptureModeSelection.choose(settings, from: info.formats, path: path) { fourCC, width, height in
                try device.frameIntervals(of: fourCC, width: width, height: height)
            }
            let mode = try configure(device, candidate)
            let choice = CaptureModeChoice(requested: settings, mode: mode,
                                           adjustments: CaptureModeSelection.adjustments(from: settings, to: mode))

            let buffers = try MappedBuffers.map(min(max(settings.bufferCount, 2), 32), minimum: 2, of: V4L2_BUF_TYPE_VIDEO_CAPTURE,
                                                kind: "buffers", on: device)
            mapped = buffers
            let session = CaptureSession(device: device, choice: choice, settings: settings, buffers: buffers)
            for index in 0..<buffers.count {
                try session.queue(UInt32(index), "queue buffer \(index) (VIDIOC_QBUF) on")
            }
            return session
        } catch {
            mapped?.release(on: device, streaming: false)
            device.close()
            throw error
        }
    }

    /// Sets the format and frame interval and reads back what the driver chose.
    private static func configure(_ device: CameraDevice, _ candidate: CaptureModeSelection.Candidate) throws -> CaptureMode {
        let path = device.path
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = UInt32(candidate.width)
        format.fmt.pix.height = UInt32(candidate.height)
        format.fmt.pix.pixelformat = candidate.fourCC.rawValue
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try device.perform(VIDIOC.setFormat, &format,
                           "set format \(candidate.fourCC) \(candidate.width)x\(candidate.height) (VIDIOC_S_FMT) on")
        let pix = format.fmt.pix
        let fourCC = FourCC(rawValue: pix.pixelformat)
        guard fourCC.isCapturable else {
            throw DeviceErrors.unsupported(path: path, what: "the driver set pixel format \(fourCC), which ELImage cannot convert",
                                           hint: "ask for one of the formats `elimage devices` lists as capturable")
        }
        if !fourCC.isJPEG, FrameLayout(fourCC: fourCC, width: Int(pix.width), height: Int(pix.height),
                                       bytesPerLine: Int(pix.bytesperline)) == nil {
            throw DeviceErrors.unsupported(path: path, what: "the driver set an empty frame size \(pix.width)x\(pix.height)",
                                           hint: "ask for another size")
        }
        var interval: FrameInterval?
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        if let wanted = candidate.interval {
            parameters.parm.capture.timeperframe = v4l2_fract(numerator: wanted.numerator, denominator: wanted.denominator)
            do throws(DeviceErrno) {
                try device.call(VIDIOC.setParameters, &parameters)
            } catch {
                // Drivers without frame-rate control answer ENOTTY or EINVAL: the rate is theirs.
                guard error.code == ENOTTY || error.code == EINVAL else {
                    throw DeviceErrors.failure(error, "set frame rate \(wanted) (VIDIOC_S_PARM) on", path: path)
                }
            }
        }
        parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        if (try? device.call(VIDIOC.getParameters, &parameters)) != nil,
           parameters.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 {
            let fraction = parameters.parm.capture.timeperframe
            if fraction.numerator > 0, fraction.denominator > 0 {
                interval = FrameInterval(numerator: fraction.numerator, denominator: fraction.denominator)
            }
        }
        return CaptureMode(fourCC: fourCC, width: Int(pix.width), height: Int(pix.height), interval: interval,
                           bytesPerLine: Int(pix.bytesperline), imageSize: Int(pix.sizeimage),
                           colorSpace: V4L2ColorDescription(pix).colorSpace(for: fourCC))
    }

    /// Starts the driver streaming (`VIDIOC_STREAMON`).
    func streamOn() throws {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        do {
            try device.perform(VIDIOC.streamOn, &type, "start streaming (VIDIOC_STREAMON) on")
        } catch {
            release()
            throw error
        }
    }

    // MARK: Capturing

    /// Waits up to `slice` milliseconds for frames. Takes every buffer that is ready, keeps only
    /// the newest and requeues the others at once, then copies the newest out (MJPEG decoded with
    /// `decoder`) and requeues its buffer too. `frameNumber` names the frame in errors.
    func capture(waitingAtMost slice: Int32, frameNumber: Int, decoder: MJPEGDecoder?) -> CaptureStep {
        let path = device.path
        var step = CaptureStep()
        let ready: PollEvents
        do throws(DeviceErrno) {
            ready = try device.poll(timeout: slice)
        } catch {
            step.failure = DeviceErrors.failure(error, "wait (poll) for frame \(frameNumber) from", path: path)
            return step
        }
        if ready.isEmpty {
            step.timedOut = true
            return step
        }
        var newest: v4l2_buffer?
        var failure: ELImageError?
        while true {
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            do throws(DeviceErrno) {
                try device.call(VIDIOC.dequeueBuffer, &buffer)
            } catch {
                if error.code != EAGAIN {
                    failure = DeviceErrors.failure(error, "dequeue frame \(frameNumber) (VIDIOC_DQBUF) from", path: path)
                }
                break
            }
            if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 || Int(buffer.index) >= buffers.count {
                step.damaged.append(nil)
                if let error = requeue(buffer.index, frameNumber) { failure = error; break }
                continue
            }
            if let older = newest {
                step.discarded.append((Self.timestamp(of: older), older.sequence))
                if let error = requeue(older.index, frameNumber) { failure = error; break }
            }
            newest = buffer
        }
        if let buffer = newest, let error = process(buffer, frameNumber: frameNumber, decoder: decoder, into: &step) {
            step.failure = error
            return step
        }
        if let failure {
            step.failure = failure
        } else if newest == nil, !ready.isDisjoint(with: [.error, .hangUp, .invalid]) {
            let code = ready.contains(.invalid) ? EBADF : (ready.contains(.hangUp) ? ENODEV : EIO)
            step.failure = DeviceErrors.failure(DeviceErrno(code), "wait (poll reported \(ready.contains(.hangUp) ? "POLLHUP" : "POLLERR")) for frame \(frameNumber) from",
                                                path: path)
        }
        return step
    }

    /// Copies a dequeued buffer out, requeues it, and puts the frame in `step`. Returns a fatal error.
    private func process(_ buffer: v4l2_buffer, frameNumber: Int, decoder: MJPEGDecoder?, into step: inout CaptureStep) -> ELImageError? {
        let memory = buffers[Int(buffer.index)]
        let used = buffer.bytesused == 0 ? memory.length : min(Int(buffer.bytesused), memory.length)
        let microseconds = Self.timestamp(of: buffer)
        let colorSpace = mode.colorSpace
        if let decoder {
            let jpeg = [UInt8](UnsafeRawBufferPointer(start: memory.address, count: used))
            if let error = requeue(buffer.index, frameNumber) { return error }
            do {
                let frame = try jpeg.withUnsafeBytes { bytes in
                    try decoder.decode(bytes, expectedSize: (mode.width, mode.height), timestamp: .zero,
                                       colorSpace: colorSpace, source: (device.path, frameNumber))
                }
                step.frame = (frame, microseconds, buffer.sequence)
            } catch {
                step.damaged.append(error as? ELImageError)
            }
            return nil
        }
        guard let layout = FrameLayout(fourCC: mode.fourCC, width: mode.width, height: mode.height,
                                       bytesPerLine: mode.bytesPerLine),
              used >= layout.byteCount else {
            step.damaged.append(nil)
            return requeue(buffer.index, frameNumber)
        }
        let data = [UInt8](UnsafeRawBufferPointer(start: memory.address, count: layout.byteCount))
        if let error = requeue(buffer.index, frameNumber) { return error }
        do {
            let frame = try PixelBuffer(format: layout.format, width: mode.width, height: mode.height, data: data,
                                        planes: layout.planes, colorSpace: colorSpace, chromaLocation: .left)
            step.frame = (frame, microseconds, buffer.sequence)
        } catch {
            step.damaged.append(error as? ELImageError)
        }
        return nil
    }

    /// `duration` in whole milliseconds, clamped to what `poll` takes.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, total))
    }

    /// The buffer's time in microseconds: its own timestamp when the driver says it is monotonic,
    /// else the monotonic clock now.
    static func timestamp(of buffer: v4l2_buffer) -> Int64 {
        let source = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK)
        let time = buffer.timestamp
        if source == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC), time.tv_sec != 0 || time.tv_usec != 0 {
            return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec)
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    private func queue(_ index: UInt32, _ operation: String) throws {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        try device.perform(VIDIOC.queueBuffer, &buffer, operation)
    }

    private func requeue(_ index: UInt32, _ frameNumber: Int) -> ELImageError? {
        do {
            try queue(index, "requeue buffer \(index) after frame \(frameNumber) (VIDIOC_QBUF) on")
            return nil
        } catch {
            return error as? ELImageError ?? .invalidState(node: device.path, reason: "\(error)")
        }
    }

    // MARK: Releasing

    /// Stops streaming, unmaps and frees the buffers, closes the device. Runs once; only when no
    /// `capture` runs.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        buffers.release(on: device, streaming: true)
        device.close()
    }
}
