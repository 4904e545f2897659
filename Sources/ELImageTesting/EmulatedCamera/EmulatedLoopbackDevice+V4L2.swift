import CV4L2
import ELImage
import ELImageCamera
import Foundation

/// The V4L2 contract of an emulated loopback device: what each call does to its state.
extension EmulatedLoopbackDevice: EmulatedDeviceNode {
    private static let outputType = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue
    private static let captureType = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue

    // MARK: Descriptors and memory

    func open(descriptor: Int32) throws(DeviceErrno) {
        try withLock { () throws(DeviceErrno) in
            if state.unplugged { throw DeviceErrno(ENOENT) }
            state.descriptors[descriptor] = state.generation
            state.counters.opens += 1
            state.counters.openDescriptors += 1
        }
    }

    func close(descriptor: Int32) {
        withLock {
            guard state.descriptors.removeValue(forKey: descriptor) != nil else { return }
            state.counters.closes += 1
            state.counters.openDescriptors -= 1
            if state.owner == descriptor {
                if state.streaming {
                    state.streaming = false
                    state.counters.streamOffs += 1
                }
                releaseBuffers()
            }
            condition.broadcast()
        }
    }

    /// Fails with ENODEV for a descriptor of a removed (or reconfigured) device, EBADF for one
    /// that is not open. Lock held.
    private func check(_ descriptor: Int32) throws(DeviceErrno) {
        guard let generation = state.descriptors[descriptor] else { throw DeviceErrno(EBADF) }
        if state.unplugged || generation != state.generation { throw DeviceErrno(ENODEV) }
    }

    func mmap(descriptor: Int32, length: Int, offset: Int64) throws(DeviceErrno) -> UnsafeMutableRawPointer {
        try withLock { () throws(DeviceErrno) -> UnsafeMutableRawPointer in
            try check(descriptor)
            let memory = try EmulatedBuffers.map(&state.buffers, length: length, offset: offset)
            state.counters.liveMappings += 1
            return memory
        }
    }

    func munmap(_ address: UnsafeMutableRawPointer) -> Bool {
        withLock {
            switch EmulatedBuffers.unmap(address, in: &state) {
            case .notOurs: return false
            case .unmapped: break
            case .freedOrphan: state.counters.liveBuffers -= 1
            }
            state.counters.liveMappings -= 1
            return true
        }
    }

    func poll(descriptor: Int32, events: PollEvents, timeout milliseconds: Int32) -> PollEvents {
        withLock {
            let deadline = Date(timeIntervalSinceNow: Double(max(0, milliseconds)) / 1000)
            while true {
                guard let generation = state.descriptors[descriptor] else { return [.invalid] }
                if state.unplugged || generation != state.generation { return [.error, .hangUp] }
                if events.contains(.writable), state.owner == descriptor, !state.stalled, !state.done.isEmpty {
                    return [.writable]
                }
                if !condition.wait(until: deadline) { return [] }
            }
        }
    }

    // MARK: ioctl

    func ioctl(descriptor: Int32, request: UInt, argument: UnsafeMutableRawPointer) throws(DeviceErrno) {
        try withLock { () throws(DeviceErrno) in
            try check(descriptor)
            switch request {
            case VIDIOC.querycap: queryCapabilities(argument.assumingMemoryBound(to: v4l2_capability.self))
            case VIDIOC.enumFormat: try enumerateFormat(argument.assumingMemoryBound(to: v4l2_fmtdesc.self))
            case VIDIOC.enumFrameSizes: try enumerateSize(argument.assumingMemoryBound(to: v4l2_frmsizeenum.self))
            case VIDIOC.enumFrameIntervals: throw DeviceErrno(EINVAL)  // v4l2loopback lists no intervals
            case VIDIOC.getFormat: try getFormat(argument.assumingMemoryBound(to: v4l2_format.self))
            case VIDIOC.tryFormat: try setFormat(argument.assumingMemoryBound(to: v4l2_format.self), apply: false)
            case VIDIOC.setFormat: try setFormat(argument.assumingMemoryBound(to: v4l2_format.self), apply: true)
            case VIDIOC.getParameters: try parameters(argument.assumingMemoryBound(to: v4l2_streamparm.self), set: false)
            case VIDIOC.setParameters: try parameters(argument.assumingMemoryBound(to: v4l2_streamparm.self), set: true)
            case VIDIOC.requestBuffers: try requestBuffers(argument.assumingMemoryBound(to: v4l2_requestbuffers.self), descriptor)
            case VIDIOC.queryBuffer: try queryBuffer(argument.assumingMemoryBound(to: v4l2_buffer.self))
            case VIDIOC.queueBuffer: try queueBuffer(argument.assumingMemoryBound(to: v4l2_buffer.self), descriptor)
            case VIDIOC.dequeueBuffer: try dequeueBuffer(argument.assumingMemoryBound(to: v4l2_buffer.self), descriptor)
            case VIDIOC.streamOn: try streamOn(descriptor)
            case VIDIOC.streamOff: try streamOff(descriptor)
            case VIDIOC.queryControl, VIDIOC.queryExtendedControl: throw DeviceErrno(EINVAL)  // no controls
            default: throw DeviceErrno(ENOTTY)
            }
        }
    }

    private func queryCapabilities(_ capability: UnsafeMutablePointer<v4l2_capability>) {
        capability.pointee = v4l2_capability()
        CString.write("v4l2 loopback", into: &capability.pointee.driver)
        CString.write(state.configuration.card, into: &capability.pointee.card)
        CString.write("platform:v4l2loopback-000", into: &capability.pointee.bus_info)
        capability.pointee.version = (0 << 16) | (12 << 8) | 7
        capability.pointee.device_caps = deviceCapabilities()
        capability.pointee.capabilities = deviceCapabilities() | UInt32(V4L2_CAP_DEVICE_CAPS)
    }

    /// The formats the output side offers: the fixed one, or every accepted one.
    private var offeredFormats: [FourCC] {
        state.configuration.fixedFormat.map { [$0.fourCC] } ?? state.configuration.acceptedFormats
    }

    private func enumerateFormat(_ description: UnsafeMutablePointer<v4l2_fmtdesc>) throws(DeviceErrno) {
        let index = Int(description.pointee.index)
        let formats: [FourCC]
        switch description.pointee.type {
        case Self.outputType: formats = offeredFormats
        case Self.captureType:
            // The capture side offers what the writer set, once it has (and, exclusive, streams).
            guard let mode = state.format, !state.configuration.exclusiveCaps || state.streaming else { throw DeviceErrno(EINVAL) }
            formats = [mode.fourCC]
        default: throw DeviceErrno(EINVAL)
        }
        guard index < formats.count else { throw DeviceErrno(EINVAL) }
        description.pointee.flags = 0
        description.pointee.pixelformat = formats[index].rawValue
        CString.write("\(formats[index])", into: &description.pointee.description)
    }

    private func enumerateSize(_ size: UnsafeMutablePointer<v4l2_frmsizeenum>) throws(DeviceErrno) {
        guard size.pointee.index == 0, offeredFormats.contains(FourCC(rawValue: size.pointee.pixel_format)) else {
            throw DeviceErrno(EINVAL)
        }
        if let fixed = state.configuration.fixedFormat {
            size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            size.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(fixed.width), height: UInt32(fixed.height))
        } else {
            size.pointee.type = V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue
            size.pointee.stepwise = v4l2_frmsize_stepwise(
                min_width: 2, max_width: UInt32(state.configuration.maximumWidth), step_width: 1,
                min_height: 2, max_height: UInt32(state.configuration.maximumHeight), step_height: 1)
        }
    }

    /// The mode the driver sets for a request: the fixed format whatever was asked, else the
    /// format if accepted (the first accepted one if not), the size clamped and rounded to what
    /// the format's subsampling needs, rows padded to the alignment.
    private func adjustedMode(_ fourCC: FourCC, _ width: Int, _ height: Int) -> Mode {
        let configuration = state.configuration
        var (fourCC, width, height) = (fourCC, width, height)
        if let fixed = configuration.fixedFormat {
            (fourCC, width, height) = (fixed.fourCC, fixed.width, fixed.height)
        } else {
            if !configuration.acceptedFormats.contains(fourCC) { fourCC = configuration.acceptedFormats[0] }
            width = min(max(width, 2), configuration.maximumWidth)
            height = min(max(height, 2), configuration.maximumHeight)
            if fourCC != .rgb24, fourCC != .grey { width += width % 2 }
            if [.yu12, .yv12, .nv12, .nv21].contains(fourCC) { height += height % 2 }
        }
        let format = fourCC.pixelFormat ?? .yuyv
        let rowBytes = format.planeShape(0, width: width, height: height).rowBytes
        let alignment = configuration.rowAlignment
        let bytesPerLine = (rowBytes + alignment - 1) / alignment * alignment
        let layout = FrameLayout(fourCC: fourCC, width: width, height: height, bytesPerLine: bytesPerLine)
        let imageSize = layout.map { layout in
            zip(layout.planes.indices, layout.planes).reduce(0) { total, entry in
                total + entry.1.bytesPerRow * format.planeShape(entry.0, width: width, height: height).height
            }
        } ?? bytesPerLine * height
        return Mode(fourCC: fourCC, width: width, height: height, bytesPerLine: bytesPerLine, imageSize: imageSize)
    }

    private func currentMode() -> Mode {
        if let mode = state.format { return mode }
        return adjustedMode(state.configuration.acceptedFormats[0], 640, 480)
    }

    private func fill(_ format: UnsafeMutablePointer<v4l2_format>, with mode: Mode) {
        format.pointee.fmt.pix = v4l2_pix_format()
        format.pointee.fmt.pix.width = UInt32(mode.width)
        format.pointee.fmt.pix.height = UInt32(mode.height)
        format.pointee.fmt.pix.pixelformat = mode.fourCC.rawValue
        format.pointee.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        format.pointee.fmt.pix.bytesperline = UInt32(mode.bytesPerLine)
        format.pointee.fmt.pix.sizeimage = UInt32(mode.imageSize)
        format.pointee.fmt.pix.colorspace = V4L2_COLORSPACE_SRGB.rawValue
    }

    private func getFormat(_ format: UnsafeMutablePointer<v4l2_format>) throws(DeviceErrno) {
        guard format.pointee.type == Self.outputType || format.pointee.type == Self.captureType else {
            throw DeviceErrno(EINVAL)
        }
        fill(format, with: currentMode())
    }

    private func setFormat(_ format: UnsafeMutablePointer<v4l2_format>, apply: Bool) throws(DeviceErrno) {
        guard format.pointee.type == Self.outputType else {
            if format.pointee.type == Self.captureType {  // readers cannot change it
                fill(format, with: currentMode())
                return
            }
            throw DeviceErrno(EINVAL)
        }
        let mode = adjustedMode(FourCC(rawValue: format.pointee.fmt.pix.pixelformat),
                                Int(format.pointee.fmt.pix.width), Int(format.pointee.fmt.pix.height))
        if apply {
            // The format cannot change while a writer holds buffers.
            if state.owner != nil { throw DeviceErrno(EBUSY) }
            state.format = mode
            state.counters.formatsSet += 1
        }
        fill(format, with: mode)
    }

    private func parameters(_ parameters: UnsafeMutablePointer<v4l2_streamparm>, set: Bool) throws(DeviceErrno) {
        guard parameters.pointee.type == Self.outputType || parameters.pointee.type == Self.captureType else {
            throw DeviceErrno(EINVAL)
        }
        if set, parameters.pointee.type == Self.outputType {
            let wanted = parameters.pointee.parm.output.timeperframe
            if wanted.numerator > 0, wanted.denominator > 0 {
                state.interval = FrameInterval(numerator: wanted.numerator, denominator: wanted.denominator)
            }
        }
        let fraction = v4l2_fract(numerator: state.interval.numerator, denominator: state.interval.denominator)
        if parameters.pointee.type == Self.outputType {
            parameters.pointee.parm.output = v4l2_outputparm()
            parameters.pointee.parm.output.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
            parameters.pointee.parm.output.timeperframe = fraction
        } else {
            parameters.pointee.parm.capture = v4l2_captureparm()
            parameters.pointee.parm.capture.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
            parameters.pointee.parm.capture.timeperframe = fraction
        }
    }

    private func requestBuffers(_ request: UnsafeMutablePointer<v4l2_requestbuffers>, _ descriptor: Int32) throws(DeviceErrno) {
        guard request.pointee.type == Self.outputType, request.pointee.memory == V4L2_MEMORY_MMAP.rawValue else {
            throw DeviceErrno(EINVAL)
        }
        if let owner = state.owner, owner != descriptor { throw DeviceErrno(EBUSY) }
        if state.streaming { throw DeviceErrno(EBUSY) }
        releaseBuffers()
        guard request.pointee.count > 0 else { return }
        let mode = currentMode()
        state.format = mode
        state.buffers = EmulatedBuffers.allocate(Int(request.pointee.count), imageSize: mode.imageSize) {
            Buffer(memory: $0, length: $1, offset: $2)
        }
        state.counters.liveBuffers += state.buffers.count
        state.owner = descriptor
        state.counters.bufferAllocations += 1
        request.pointee.count = UInt32(state.buffers.count)
    }

    private func describe(_ index: Int, into buffer: UnsafeMutablePointer<v4l2_buffer>) {
        let stored = state.buffers[index]
        let flags = UInt32(V4L2_BUF_FLAG_TIMESTAMP_COPY) | (stored.queued ? UInt32(V4L2_BUF_FLAG_DONE) : 0)
        EmulatedBuffers.describe(stored, index: index, type: V4L2_BUF_TYPE_VIDEO_OUTPUT, flags: flags, into: buffer)
    }

    private func queryBuffer(_ buffer: UnsafeMutablePointer<v4l2_buffer>) throws(DeviceErrno) {
        let index = Int(buffer.pointee.index)
        guard buffer.pointee.type == Self.outputType, state.buffers.indices.contains(index) else { throw DeviceErrno(EINVAL) }
        describe(index, into: buffer)
    }

    /// The writer hands a filled buffer over: every consumer gets the frame now, and the buffer
    /// is ready to dequeue again (v4l2loopback copies nothing and blocks no writer).
    private func queueBuffer(_ buffer: UnsafeMutablePointer<v4l2_buffer>, _ descriptor: Int32) throws(DeviceErrno) {
        guard state.owner == descriptor else { throw DeviceErrno(EBUSY) }
        let index = Int(buffer.pointee.index)
        guard buffer.pointee.type == Self.outputType, buffer.pointee.memory == V4L2_MEMORY_MMAP.rawValue,
              state.buffers.indices.contains(index), !state.buffers[index].queued else { throw DeviceErrno(EINVAL) }
        let stored = state.buffers[index]
        let used = buffer.pointee.bytesused == 0 ? stored.length : Int(buffer.pointee.bytesused)
        guard used <= stored.length else { throw DeviceErrno(EINVAL) }
        let mode = currentMode()
        if used < mode.imageSize { state.counters.shortFrames += 1 }
        if state.consumers.values.contains(where: \.attached) {  // copied out only for readers, as the driver does
            let time = buffer.pointee.timestamp
            deliver(Frame(fourCC: mode.fourCC, width: mode.width, height: mode.height, bytesPerLine: mode.bytesPerLine,
                          data: [UInt8](UnsafeRawBufferPointer(start: stored.memory, count: used)),
                          sequence: state.sequence, timestampMicroseconds: Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec)))
        }
        state.sequence += 1
        state.counters.framesWritten += 1
        state.buffers[index].queued = true
        state.done.append(index)
        describe(index, into: buffer)
        condition.broadcast()
    }

    private func dequeueBuffer(_ buffer: UnsafeMutablePointer<v4l2_buffer>, _ descriptor: Int32) throws(DeviceErrno) {
        guard state.owner == descriptor else { throw DeviceErrno(EBUSY) }
        guard buffer.pointee.type == Self.outputType else { throw DeviceErrno(EINVAL) }
        guard !state.stalled, !state.done.isEmpty else { throw DeviceErrno(EAGAIN) }
        let index = state.done.removeFirst()
        state.buffers[index].queued = false
        describe(index, into: buffer)
    }

    private func streamOn(_ descriptor: Int32) throws(DeviceErrno) {
        guard state.owner == descriptor, !state.buffers.isEmpty else { throw DeviceErrno(EINVAL) }
        guard !state.streaming else { return }
        state.streaming = true
        state.counters.streamOns += 1
        condition.broadcast()
    }

    private func streamOff(_ descriptor: Int32) throws(DeviceErrno) {
        guard state.owner == descriptor else { throw DeviceErrno(EBUSY) }
        if state.streaming {
            state.streaming = false
            state.counters.streamOffs += 1
        }
        for index in state.buffers.indices { state.buffers[index].queued = false }
        state.done = []
        condition.broadcast()
    }
}
