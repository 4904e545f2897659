import CV4L2
import Dispatch
import ELImage
import Foundation
import Synchronization

/// What a capture thread tells its camera. Called on the capture thread; must not block.
struct CaptureEvents: Sendable {
    /// A good frame, copied out of the driver's buffer (already requeued). `microseconds` is the
    /// buffer's monotonic timestamp; `sequence` the driver's frame counter.
    var frame: @Sendable (_ buffer: PixelBuffer, _ microseconds: Int64, _ sequence: UInt32) -> Void
    /// A frame the capture thread discarded for a newer one ready at the same time, with its
    /// timestamp and sequence number.
    var discarded: @Sendable (_ microseconds: Int64, _ sequence: UInt32) -> Void
    /// A damaged frame (driver error flag, too short, undecodable), with the error when there is one.
    var corrupted: @Sendable (ELImageError?) -> Void
    /// A fatal failure; the thread has released the device and is about to exit.
    var failed: @Sendable (ELImageError) -> Void
    /// The thread has exited.
    var exited: @Sendable () -> Void
}

/// One device streaming in one mode: the open device, its mmap buffers, and the capture thread.
///
/// `prepare` opens and configures the device and queues the buffers; `streamOn` starts the driver;
/// `startCapture` starts the thread; `stop` stops the thread and releases everything. The thread
/// polls with a short slice so that `stop` is prompt, copies each frame out of its buffer and
/// requeues the buffer at once, then hands the copy to `CaptureEvents.frame`.
final class CaptureSession: Sendable {
    let device: CameraDevice
    let choice: CaptureModeChoice
    var mode: CaptureMode { choice.mode }
    let settings: CaptureSettings
    private let buffers: [MappedBuffer]
    private let stopRequested = Atomic<Bool>(false)
    private let released = Atomic<Bool>(false)
    /// The capture thread, once started; `stop()` joins it (and, called on it from a callback
    /// that released the last reference to the camera, does not wait for itself).
    private let captureThread = Locked<JoinableThread?>(nil)

    /// A driver buffer mapped into this process. The address is only read by the capture thread
    /// (while the buffer is dequeued) and unmapped by `release()` after that thread has stopped.
    struct MappedBuffer: @unchecked Sendable {
        // @unchecked Sendable: a raw pointer, read by the capture thread alone (see above).
        let address: UnsafeMutableRawPointer
        let length: Int
    }

    /// The poll slice: how quickly `stop` is noticed.
    static let pollSlice: Duration = .milliseconds(50)
    /// Extra time the first frame of a session may take, beyond the stall timeout.
    static let startupGrace: Duration = .seconds(3)

    private init(device: CameraDevice, choice: CaptureModeChoice, settings: CaptureSettings, buffers: [MappedBuffer]) {
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
        var mapped: [MappedBuffer] = []
        var requested = false
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

            var request = v4l2_requestbuffers()
            request.count = UInt32(min(max(settings.bufferCount, 2), 32))
            request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            request.memory = V4L2_MEMORY_MMAP.rawValue
            try device.perform(VIDIOC.requestBuffers, &request, "allocate \(request.count) buffers (VIDIOC_REQBUFS) on")
            requested = true
            guard request.count >= 2 else {
                throw ELImageError.io(file: path, operation: "allocate buffers on", errno: ENOMEM,
                                      hint: "errno ENOMEM: the driver gave \(request.count) buffers, capture needs at least 2")
            }
            for index in 0..<request.count {
                var buffer = v4l2_buffer()
                buffer.index = index
                buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
                buffer.memory = V4L2_MEMORY_MMAP.rawValue
                try device.perform(VIDIOC.queryBuffer, &buffer, "query buffer \(index) (VIDIOC_QUERYBUF) of")
                do throws(DeviceErrno) {
                    let address = try device.map(length: Int(buffer.length), offset: Int64(buffer.m.offset))
                    mapped.append(MappedBuffer(address: address, length: Int(buffer.length)))
                } catch {
                    throw DeviceErrors.failure(error, "map buffer \(index) of", path: path)
                }
            }
            let session = CaptureSession(device: device, choice: choice, settings: settings, buffers: mapped)
            for index in mapped.indices {
                try session.queue(UInt32(index), "queue buffer \(index) (VIDIOC_QBUF) on")
            }
            return session
        } catch {
            release(device: device, buffers: mapped, buffersRequested: requested, streaming: false)
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
                                           hint: "ask for one of the formats `camera-devices` lists as capturable")
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

    // MARK: The capture thread

    /// Starts the capture thread, registered in `group`.
    /// - Throws: `ELImageError.invalidState` when the system refuses a thread.
    func startCapture(_ events: CaptureEvents, group: ThreadGroup) throws {
        let thread = JoinableThread(name: "ELImage.camera \(device.path)", group: group) { [self] in
            run(events)
            release()
            events.exited()
        }
        let fresh = captureThread.withLock { current -> Bool in
            guard current == nil else { return false }
            current = thread
            return true
        }
        guard fresh else { return }
        try thread.start()
    }

    /// Stops the capture thread (joining it) and releases the device. Safe to call twice, and
    /// from the capture thread itself (then the thread releases the device as it exits).
    func stop() {
        requestStop()
        let thread = captureThread.withLock { $0 }
        if thread?.isCurrent == true { return }
        thread?.joinBlocking()
        release()
    }

    /// Asks the capture thread to stop without waiting; it releases the device as it exits (the
    /// safety net of a camera released while running).
    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
    }

    /// True while the thread has not been told to stop.
    var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    private func run(_ events: CaptureEvents) {
        let path = device.path
        var decoder: MJPEGDecoder?
        if mode.fourCC.isJPEG {
            do {
                decoder = try MJPEGDecoder()
            } catch {
                fail(error as? ELImageError ?? .invalidState(node: path, reason: "\(error)"), events)
                return
            }
        }
        let clock = ContinuousClock()
        var lastFrame = clock.now
        var frameNumber = 0
        let sliceMilliseconds = Self.milliseconds(Self.pollSlice)
        while !stopRequested.load(ordering: .acquiring) {
            // Cameras take a moment to start (exposure settling): the first frame gets 3 s more.
            let timeout = frameNumber == 0 ? settings.stallTimeout + Self.startupGrace : settings.stallTimeout
            let waited = clock.now - lastFrame
            let remaining = timeout - waited
            let slice = min(sliceMilliseconds, max(1, Self.milliseconds(remaining)))
            let ready: PollEvents
            do throws(DeviceErrno) {
                ready = try device.poll(timeout: slice)
            } catch {
                fail(DeviceErrors.failure(error, "wait (poll) for frame \(frameNumber) from", path: path), events)
                return
            }
            if stopRequested.load(ordering: .acquiring) { break }
            if ready.isEmpty {
                if clock.now - lastFrame >= timeout {
                    fail(DeviceErrors.stalled(path: path, timeout: timeout, frame: frameNumber), events)
                    return
                }
                continue
            }
            // Take every buffer that is ready; keep only the newest, requeue the others at once.
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
                    events.corrupted(nil)
                    if let error = requeue(buffer.index, frameNumber) { failure = error; break }
                    continue
                }
                if let older = newest {
                    events.discarded(Self.timestamp(of: older), older.sequence)
                    if let error = requeue(older.index, frameNumber) { failure = error; break }
                }
                newest = buffer
            }
            if let buffer = newest {
                lastFrame = clock.now
                if let error = process(buffer, frameNumber: frameNumber, decoder: decoder, events: events) {
                    fail(error, events)
                    return
                }
                frameNumber += 1
            }
            if let failure {
                fail(failure, events)
                return
            }
            if newest == nil, !ready.isDisjoint(with: [.error, .hangUp, .invalid]) {
                let code = ready.contains(.invalid) ? EBADF : (ready.contains(.hangUp) ? ENODEV : EIO)
                fail(DeviceErrors.failure(DeviceErrno(code), "wait (poll reported \(ready.contains(.hangUp) ? "POLLHUP" : "POLLERR")) for frame \(frameNumber) from",
                                          path: path), events)
                return
            }
        }
    }

    /// Copies a dequeued buffer out, requeues it, and hands the frame on. Returns a fatal error.
    private func process(_ buffer: v4l2_buffer, frameNumber: Int, decoder: MJPEGDecoder?, events: CaptureEvents) -> ELImageError? {
        let memory = buffers[Int(buffer.index)]
        let used = buffer.bytesused == 0 ? memory.length : min(Int(buffer.bytesused), memory.length)
        let microseconds = Self.timestamp(of: buffer)
        let colorSpace = mode.colorSpace
        if let decoder {
            let jpeg = [UInt8](UnsafeRawBufferPointer(start: memory.address, count: used))
            if let error = requeue(buffer.index, frameNumber) { return error }
            do {
                let frame = try jpeg.withUnsafeBytes { bytes in
                    try decoder.decode(bytes, timestamp: .zero, colorSpace: colorSpace, source: (device.path, frameNumber))
                }
                events.frame(frame, microseconds, buffer.sequence)
            } catch {
                events.corrupted(error as? ELImageError)
            }
            return nil
        }
        guard let layout = FrameLayout(fourCC: mode.fourCC, width: mode.width, height: mode.height,
                                       bytesPerLine: mode.bytesPerLine),
              used >= layout.byteCount else {
            events.corrupted(nil)
            return requeue(buffer.index, frameNumber)
        }
        let data = [UInt8](UnsafeRawBufferPointer(start: memory.address, count: layout.byteCount))
        if let error = requeue(buffer.index, frameNumber) { return error }
        do {
            let frame = try PixelBuffer(format: layout.format, width: mode.width, height: mode.height, data: data,
                                        planes: layout.planes, colorSpace: colorSpace, chromaLocation: .left)
            events.frame(frame, microseconds, buffer.sequence)
        } catch {
            events.corrupted(error as? ELImageError)
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

    private func fail(_ error: ELImageError, _ events: CaptureEvents) {
        release()
        events.failed(error)
    }

    // MARK: Releasing

    /// Stops streaming, unmaps and frees the buffers, closes the device. Runs once.
    private func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Self.release(device: device, buffers: buffers, buffersRequested: true, streaming: true)
    }

    private static func release(device: CameraDevice, buffers: [MappedBuffer], buffersRequested: Bool, streaming: Bool) {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            try? device.call(VIDIOC.streamOff, &type)
        }
        for buffer in buffers { device.io.munmap(buffer.address, length: buffer.length) }
        if buffersRequested {
            var request = v4l2_requestbuffers()
            request.count = 0
            request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            request.memory = V4L2_MEMORY_MMAP.rawValue
            try? device.call(VIDIOC.requestBuffers, &request)
        }
        device.close()
    }
}
