import CV4L2
import ELImage
import Glibc

/// One opening of a V4L2 output device (a v4l2loopback node) streaming mmap buffers: the format
/// negotiated with the driver, the buffers mapped, and each frame copied into a free buffer and
/// queued. Used by one thread at a time (a `VirtualCamera`'s writer thread).
final class V4L2OutputStream {
    let device: CameraDevice
    let mode: VirtualCameraMode
    private let layout: FrameLayout
    private let buffers: MappedBuffers
    /// Buffers the application holds: never queued yet, or dequeued.
    private var free: [Int]
    private var streaming = false
    private var closed = false

    private static let outputType = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue

    // MARK: Opening

    /// Opens `path` and checks that it takes video frames by streaming.
    /// - Returns: the device and what a consumer should know (a device that advertises capture
    ///   and output at once is hidden by Chrome).
    /// - Throws: `ELImageError.io` (no such device, permission) or `.invalidInput` (a camera, a
    ///   codec, a loopback device another program writes to).
    static func openDevice(path: String, io: any VideoDeviceIO) throws -> (device: CameraDevice, warnings: [String]) {
        let device = try CameraDevice(path: path, io: io)
        do {
            let info = try device.info()
            return (device, try warnings(checking: info))
        } catch {
            device.close()
            throw error
        }
    }

    /// Why `info` cannot be written to, or the warnings about it.
    static func warnings(checking info: CameraDeviceInfo) throws -> [String] {
        let path = info.path, capabilities = info.capabilities
        let isLoopback = info.driver == "v4l2 loopback"
        guard capabilities.contains(.videoOutput) else {
            if isLoopback, capabilities.contains(.videoCapture) {
                throw DeviceErrors.unsupported(
                    path: path, what: "the loopback device '\(info.card)' shows only its capture side: another program is writing to it",
                    hint: "stop that program (find it with `fuser \(path)`), or write to another loopback device (`elimage devices` lists them)")
            }
            let what = capabilities.contains(.videoCapture) ? "is a capture device (a camera), not a video output device"
                : capabilities.contains(.memoryToMemory) ? "is a memory-to-memory device (a codec), not a video output device"
                : "has no single-planar video output (\(capabilities))"
            throw DeviceErrors.unsupported(
                path: path, what: "'\(info.card)' \(what)",
                hint: "write to a v4l2loopback device: sudo modprobe v4l2loopback exclusive_caps=1 card_label=ELImage, then `elimage devices` lists it (\(DocumentationPage.virtualCamera.pointer))")
        }
        guard capabilities.contains(.streaming) else {
            throw DeviceErrors.unsupported(path: path, what: "'\(info.card)' does not stream buffers (no V4L2_CAP_STREAMING)",
                                           hint: "use a v4l2loopback device, which does")
        }
        if capabilities.contains(.videoCapture) {
            return ["\(path) advertises capture and output at once: Chrome and other WebRTC programs hide such a device; "
                + "load v4l2loopback with exclusive_caps=1 so that it shows as a camera while ELImage writes"]
        }
        return []
    }

    // MARK: Negotiating

    /// Negotiates a format on `device` (already checked by `openDevice`), maps its buffers, and
    /// takes the stream over; `width` x `height` is the size asked for (the driver may answer
    /// with another). The device is closed when this throws.
    /// - Throws: `ELImageError.invalidInput` when the driver takes none of the formats ELImage
    ///   writes; `.io` when a request fails (EBUSY: another program holds the device).
    static func start(on device: CameraDevice, settings: VirtualCameraSettings, width: Int, height: Int) throws -> V4L2OutputStream {
        do {
            let mode = try negotiate(device, settings: settings, width: width, height: height)
            guard let layout = FrameLayout(fourCC: mode.fourCC, width: mode.width, height: mode.height,
                                           bytesPerLine: mode.bytesPerLine) else {
                throw DeviceErrors.unsupported(path: device.path, what: "no plane layout for \(mode)", hint: "choose another format")
            }
            let buffers = try MappedBuffers.map(settings.bufferCount, minimum: 1, of: V4L2_BUF_TYPE_VIDEO_OUTPUT,
                                                kind: "output buffers", on: device)
            if let short = buffers.buffers.firstIndex(where: { $0.length < mode.imageSize }) {
                buffers.release(on: device, streaming: false)
                throw DeviceErrors.unsupported(
                    path: device.path, what: "output buffer \(short) holds \(buffers[short].length) bytes, a \(mode) frame needs \(mode.imageSize)",
                    hint: "reload the driver; its buffers do not fit its own format")
            }
            return V4L2OutputStream(device: device, mode: mode, layout: layout, buffers: buffers)
        } catch {
            device.close()
            throw error
        }
    }

    private init(device: CameraDevice, mode: VirtualCameraMode, layout: FrameLayout, buffers: MappedBuffers) {
        self.device = device
        self.mode = mode
        self.layout = layout
        self.buffers = buffers
        free = Array(0..<buffers.count)
    }

    /// Offers each wanted format in turn (`VIDIOC_S_FMT`) and takes the first answer ELImage can
    /// write (the driver's format and size, whatever was asked), then announces the frame rate.
    private static func negotiate(_ device: CameraDevice, settings: VirtualCameraSettings,
                                  width: Int, height: Int) throws -> VirtualCameraMode {
        let path = device.path
        var answers: [FourCC] = []
        let color = V4L2ColorDescription(describing: settings.colorSpace)
        for wanted in settings.formats {
            var format = v4l2_format()
            format.type = outputType
            format.fmt.pix.width = UInt32(width)
            format.fmt.pix.height = UInt32(height)
            format.fmt.pix.pixelformat = wanted.rawValue
            format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
            format.fmt.pix.colorspace = color.colorspace
            format.fmt.pix.ycbcr_enc = color.ycbcrEncoding
            format.fmt.pix.quantization = color.quantization
            format.fmt.pix.xfer_func = color.transferFunction
            do throws(DeviceErrno) {
                try device.call(VIDIOC.setFormat, &format)
            } catch {
                guard error.code == EBUSY else {
                    throw DeviceErrors.failure(error, "set the output format \(wanted) \(width)x\(height) (VIDIOC_S_FMT) of", path: path)
                }
                // The format is held (a fixed format while someone streams): take the current one.
                format = v4l2_format()
                format.type = outputType
                try device.perform(VIDIOC.getFormat, &format, "read the output format (VIDIOC_G_FMT) of")
            }
            let answer = FourCC(rawValue: format.fmt.pix.pixelformat)
            guard VirtualCameraSettings.writableFormats.contains(answer), let pixelFormat = answer.pixelFormat else {
                answers.append(answer)
                continue
            }
            let (actualWidth, actualHeight) = (Int(format.fmt.pix.width), Int(format.fmt.pix.height))
            guard actualWidth > 0, actualHeight > 0 else {
                throw DeviceErrors.unsupported(path: path, what: "the driver answered \(answer) \(actualWidth)x\(actualHeight)",
                                               hint: "reconfigure the device with a real size (v4l2loopback-ctl set-caps)")
            }
            let rowBytes = pixelFormat.planeShape(0, width: actualWidth, height: actualHeight).rowBytes
            let bytesPerLine = max(Int(format.fmt.pix.bytesperline), rowBytes)
            let needed = FrameLayout(fourCC: answer, width: actualWidth, height: actualHeight, bytesPerLine: bytesPerLine)?.byteCount ?? 0
            return VirtualCameraMode(fourCC: answer, width: actualWidth, height: actualHeight, bytesPerLine: bytesPerLine,
                                     imageSize: max(Int(format.fmt.pix.sizeimage), needed),
                                     interval: announce(settings.framesPerSecond, to: device))
        }
        let offered = (try? outputFormats(of: device)) ?? []
        throw DeviceErrors.unsupported(
            path: path,
            what: "the driver answered \(Set(answers).map(\.description).sorted().joined(separator: ", ")) to \(settings.formats.map(\.description).joined(separator: ", ")); it offers \(offered.isEmpty ? "nothing" : offered.map(\.description).joined(separator: ", "))",
            hint: "fix the device to a format ELImage writes (\(VirtualCameraSettings.writableFormats.map(\.description).joined(separator: ", "))), e.g. v4l2loopback-ctl set-caps \(path) \"YUYV:1280x720\"")
    }

    /// Tells the driver the frame rate (`VIDIOC_S_PARM`); returns what it kept (the rate asked
    /// when it keeps none).
    private static func announce(_ framesPerSecond: Double, to device: CameraDevice) -> FrameInterval {
        let wanted = FrameInterval(framesPerSecond: framesPerSecond)
        var parameters = v4l2_streamparm()
        parameters.type = outputType
        parameters.parm.output.timeperframe = v4l2_fract(numerator: wanted.numerator, denominator: wanted.denominator)
        do throws(DeviceErrno) {
            try device.call(VIDIOC.setParameters, &parameters)
        } catch {
            return wanted  // ENOTTY/EINVAL: a driver without frame rates; consumers take the frames as they come
        }
        let kept = parameters.parm.output.timeperframe
        return kept.numerator > 0 && kept.denominator > 0 ? FrameInterval(numerator: kept.numerator, denominator: kept.denominator) : wanted
    }

    /// The formats the output side lists (`VIDIOC_ENUM_FMT`).
    static func outputFormats(of device: CameraDevice) throws -> [FourCC] {
        try device.formats(type: V4L2_BUF_TYPE_VIDEO_OUTPUT).map(\.fourCC)
    }

    // MARK: Writing

    /// Copies `picture` (in the negotiated format and size) into a free buffer and queues it,
    /// starting the stream with the first. Waits at most `milliseconds` for the driver to give a
    /// buffer back; returns false when none came (the frame is not written).
    /// - Throws: `ELImageError.io` when the device fails (gone, reconfigured): the stream is dead.
    func write(_ picture: PixelBuffer, frame number: Int, waitingAtMost milliseconds: Int32) throws -> Bool {
        guard let index = try freeBuffer(frame: number, waitingAtMost: milliseconds) else { return false }
        let memory = buffers[index]
        layout.copy(picture, into: UnsafeMutableRawBufferPointer(start: memory.address, count: memory.length))
        var buffer = v4l2_buffer()
        buffer.index = UInt32(index)
        buffer.type = Self.outputType
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        buffer.bytesused = UInt32(mode.imageSize)
        buffer.field = V4L2_FIELD_NONE.rawValue
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        buffer.timestamp = timeval(tv_sec: now.tv_sec, tv_usec: now.tv_nsec / 1000)
        do {
            try device.perform(VIDIOC.queueBuffer, &buffer, "queue frame \(number) (VIDIOC_QBUF) to")
        } catch {
            free.append(index)
            throw error
        }
        if !streaming {
            var type = Int32(Self.outputType)
            try device.perform(VIDIOC.streamOn, &type, "start the output stream (VIDIOC_STREAMON) of")
            streaming = true
        }
        return true
    }

    /// A buffer the application holds, dequeuing one the driver is done with (waiting for one at
    /// most `milliseconds`); nil when none came back in time.
    private func freeBuffer(frame number: Int, waitingAtMost milliseconds: Int32) throws -> Int? {
        if let index = free.popLast() { return index }
        for attempt in 0..<2 {
            var buffer = v4l2_buffer()
            buffer.type = Self.outputType
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            var dequeued = true
            do throws(DeviceErrno) {
                try device.call(VIDIOC.dequeueBuffer, &buffer)
            } catch {
                guard error.code == EAGAIN else {
                    throw DeviceErrors.failure(error, "take back an output buffer for frame \(number) (VIDIOC_DQBUF) from", path: device.path)
                }
                dequeued = false
            }
            if dequeued {
                guard Int(buffer.index) < buffers.count else {
                    throw DeviceErrors.unsupported(path: device.path, what: "the driver gave back buffer \(buffer.index) of \(buffers.count)",
                                                   hint: "reload the driver")
                }
                return Int(buffer.index)
            }
            guard attempt == 0 else { break }
            let events: PollEvents
            do throws(DeviceErrno) {
                events = try device.poll(for: .writable, timeout: milliseconds)
            } catch {
                throw DeviceErrors.failure(error, "wait (poll) for an output buffer for frame \(number) from", path: device.path)
            }
            if !events.isDisjoint(with: [.error, .hangUp, .invalid]) {
                let code = events.contains(.invalid) ? EBADF : ENODEV
                throw DeviceErrors.failure(DeviceErrno(code), "wait (poll reported \(events.contains(.hangUp) ? "POLLHUP" : "POLLERR")) for an output buffer for frame \(number) from",
                                           path: device.path)
            }
            if events.isEmpty { return nil }
        }
        return nil
    }

    // MARK: Closing

    /// Stops the stream, unmaps and frees the buffers and closes the device (each step's failure
    /// ignored: the device may be gone). Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        buffers.release(on: device, streaming: streaming)
        streaming = false
        device.close()
    }

    deinit { close() }
}
