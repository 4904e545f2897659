import CV4L2
import ELImage
import ELImageCamera
import Foundation

/// The V4L2 contract of an emulated device: what each call does to its state.
extension EmulatedVideoDevice {

    // MARK: Descriptors and memory

    func open(descriptor: Int32) throws(DeviceErrno) {
        try withLock { () throws(DeviceErrno) in
            if state.unplugged { throw DeviceErrno(ENOENT) }
            if let code = state.openError { throw DeviceErrno(code) }
            state.openDescriptors.insert(descriptor)
            state.counters.opens += 1
            state.counters.openDescriptors += 1
        }
    }

    func close(descriptor: Int32) {
        withLock {
            guard state.openDescriptors.remove(descriptor) != nil else { return }
            state.counters.closes += 1
            state.counters.openDescriptors -= 1
            if state.owner == descriptor {
                if state.streaming { stopStreaming() }
                state.releaseBuffers()
            }
            condition.broadcast()
        }
    }

    func mmap(descriptor: Int32, length: Int, offset: Int64) throws(DeviceErrno) -> UnsafeMutableRawPointer {
        try withLock { () throws(DeviceErrno) -> UnsafeMutableRawPointer in
            try check(descriptor)
            let memory = try EmulatedBuffers.map(&state.buffers, length: length, offset: offset)
            state.counters.maps += 1
            state.counters.liveMappings += 1
            return memory
        }
    }

    /// Unmaps `address` if it is one of this device's buffers; returns false if it is not.
    func munmap(_ address: UnsafeMutableRawPointer) -> Bool {
        withLock {
            switch EmulatedBuffers.unmap(address, in: &state) {
            case .notOurs: return false
            case .unmapped: break
            case .freedOrphan: state.counters.liveBuffers -= 1
            }
            state.counters.unmaps += 1
            state.counters.liveMappings -= 1
            return true
        }
    }

    // MARK: Poll

    func poll(descriptor: Int32, timeout milliseconds: Int32) -> PollEvents {
        withLock {
            defer { state.counters.polls += 1 }
            let deadline = Self.monotonicMicroseconds() + Int64(max(0, milliseconds)) * 1000
            while true {
                if state.unplugged { return [.error, .hangUp] }
                guard state.openDescriptors.contains(descriptor) else { return [.invalid] }
                guard state.streaming, state.owner == descriptor else { return [.error] }
                if state.spuriousWakeups > 0 {
                    state.spuriousWakeups -= 1
                    return [.readable]
                }
                let now = Self.monotonicMicroseconds()
                advance(to: now)
                if !state.done.isEmpty { return [.readable] }
                if now >= deadline { return [] }
                var wake = deadline
                if pacing == .realTime, !state.stalled { wake = min(wake, state.dueTime(of: state.nextSequence)) }
                let seconds = Double(max(0, wake - now)) / 1_000_000
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            }
        }
    }

    // MARK: Frames

    /// Makes the frames that are due by `now` (real-time pacing). Lock held.
    private func advance(to now: Int64) {
        guard pacing == .realTime, state.streaming, !state.stalled, !state.unplugged else { return }
        var due = 0
        while state.dueTime(of: state.nextSequence &+ UInt32(due)) <= now, due < 1000 { due += 1 }
        if due > state.buffers.count + 1 {
            // Long behind (a paused process): the sensor's frames were lost, sequence numbers go on.
            let lost = due - state.buffers.count - 1
            state.nextSequence &+= UInt32(lost)
            state.counters.framesProduced += lost
            state.counters.framesLostByDriver += lost
            due -= lost
        }
        for _ in 0..<due { produceFrame() }
    }

    /// Fills the oldest queued buffer with the next frame, or loses the frame. Lock held.
    func produceFrame() {
        let sequence = state.nextSequence
        state.nextSequence &+= 1
        state.counters.framesProduced += 1
        guard let mode = state.format, !state.queued.isEmpty else {
            state.counters.framesLostByDriver += 1
            return
        }
        let index = state.queued.removeFirst()
        let buffer = state.buffers[index]
        let destination = UnsafeMutableRawBufferPointer(start: buffer.memory, count: buffer.length)
        var used = 0
        if let data = frameData(for: mode, sequence: sequence) {
            if mode.fourCC.isJPEG {
                used = min(data.count, buffer.length)
                data.withUnsafeBytes { source in
                    UnsafeMutableRawBufferPointer(rebasing: destination[0..<used])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<used]))
                }
            } else if let layout = FrameLayout(fourCC: mode.fourCC, width: mode.width, height: mode.height,
                                               bytesPerLine: mode.bytesPerLine) {
                EmulatedFrames.expand(data, width: mode.width, height: mode.height, into: layout, destination: destination)
                used = mode.imageSize
            }
        }
        state.buffers[index].state = .done
        state.buffers[index].bytesUsed = used
        state.buffers[index].sequence = sequence
        state.buffers[index].timestamp = state.dueTime(of: sequence)
        state.buffers[index].damaged = state.corruptNext
        state.corruptNext = false
        state.done.append(index)
        state.counters.buffersUsed.insert(index)
    }

    /// The frame's bytes: packed planes or a JPEG, with the frame number drawn when asked. Lock held.
    private func frameData(for mode: EmulatedDeviceState.Mode, sequence: UInt32) -> [UInt8]? {
        let key = EmulatedDeviceState.FrameKey(fourCC: mode.fourCC, width: mode.width, height: mode.height)
        let colorSpace = reportedColor(for: mode.fourCC).colorSpace(for: mode.fourCC)
        if state.marksFrames, mode.fourCC.isJPEG {
            var picture = scaledPicture(key)
            EmulatedFrames.mark(Int(sequence), on: &picture)
            return try? EmulatedFrames.jpeg(picture)
        }
        var data: [UInt8]
        if let cached = state.frameCache[key] {
            data = cached
        } else {
            guard let encoded = try? EmulatedFrames.encode(scaledPicture(key), as: mode.fourCC, colorSpace: colorSpace) else {
                return nil
            }
            state.frameCache[key] = encoded
            data = encoded
        }
        if state.marksFrames, let format = mode.fourCC.pixelFormat {
            EmulatedFrameMarker.mark(Int(sequence), in: &data, format: format, width: mode.width, height: mode.height,
                                     range: colorSpace.range)
        }
        return data
    }

    private func scaledPicture(_ key: EmulatedDeviceState.FrameKey) -> RGBAImage {
        if let picture = state.scaledPictures[key] { return picture }
        let picture = state.picture.map { EmulatedFrames.scaled($0, width: key.width, height: key.height) }
            ?? EmulatedFrames.testPattern(width: key.width, height: key.height)
        state.scaledPictures[key] = picture
        return picture
    }

    /// The colour fields G/S_FMT report for `fourCC`.
    func reportedColor(for fourCC: FourCC) -> V4L2ColorDescription {
        fourCC.isJPEG ? V4L2ColorDescription(colorspace: V4L2_COLORSPACE_JPEG.rawValue) : colorDescription
    }

    private func stopStreaming() {
        state.streaming = false
        state.queued = []
        state.done = []
        for index in state.buffers.indices { state.buffers[index].state = .application }
        state.counters.streamOffs += 1
    }

    // MARK: ioctl

    /// Fails with ENODEV once unplugged, EBADF for a descriptor that is not open. Lock held.
    private func check(_ descriptor: Int32) throws(DeviceErrno) {
        if state.unplugged { throw DeviceErrno(ENODEV) }
        guard state.openDescriptors.contains(descriptor) else { throw DeviceErrno(EBADF) }
    }

    func ioctl(descriptor: Int32, request: UInt, argument: UnsafeMutableRawPointer) throws(DeviceErrno) {
        try withLock { () throws(DeviceErrno) in
            try check(descriptor)
            switch request {
            case VIDIOC.querycap: queryCapabilities(argument.assumingMemoryBound(to: v4l2_capability.self))
            case VIDIOC.enumFormat: try enumerateFormat(argument.assumingMemoryBound(to: v4l2_fmtdesc.self))
            case VIDIOC.enumFrameSizes: try enumerateSize(argument.assumingMemoryBound(to: v4l2_frmsizeenum.self))
            case VIDIOC.enumFrameIntervals: try enumerateInterval(argument.assumingMemoryBound(to: v4l2_frmivalenum.self))
            case VIDIOC.getFormat: try getFormat(argument.assumingMemoryBound(to: v4l2_format.self))
            case VIDIOC.tryFormat: try setFormat(argument.assumingMemoryBound(to: v4l2_format.self), descriptor, apply: false)
            case VIDIOC.setFormat: try setFormat(argument.assumingMemoryBound(to: v4l2_format.self), descriptor, apply: true)
            case VIDIOC.getParameters: try parameters(argument.assumingMemoryBound(to: v4l2_streamparm.self), set: false)
            case VIDIOC.setParameters: try parameters(argument.assumingMemoryBound(to: v4l2_streamparm.self), set: true)
            case VIDIOC.requestBuffers: try requestBuffers(argument.assumingMemoryBound(to: v4l2_requestbuffers.self), descriptor)
            case VIDIOC.queryBuffer: try queryBuffer(argument.assumingMemoryBound(to: v4l2_buffer.self))
            case VIDIOC.queueBuffer: try queueBuffer(argument.assumingMemoryBound(to: v4l2_buffer.self), descriptor)
            case VIDIOC.dequeueBuffer: try dequeueBuffer(argument.assumingMemoryBound(to: v4l2_buffer.self), descriptor)
            case VIDIOC.streamOn: try streamOn(descriptor)
            case VIDIOC.streamOff: try streamOff(descriptor)
            case VIDIOC.queryControl: try queryControl(argument.assumingMemoryBound(to: v4l2_queryctrl.self))
            case VIDIOC.queryExtendedControl:
                guard state.extendedControlQuery else { throw DeviceErrno(ENOTTY) }
                try queryExtendedControl(argument.assumingMemoryBound(to: v4l2_query_ext_ctrl.self))
            case VIDIOC.queryMenu: try queryMenu(argument.assumingMemoryBound(to: v4l2_querymenu.self))
            case VIDIOC.getControl: try getControl(argument.assumingMemoryBound(to: v4l2_control.self))
            case VIDIOC.setControl: try setControl(argument.assumingMemoryBound(to: v4l2_control.self))
            case VIDIOC.getExtendedControls: try extendedControls(argument.assumingMemoryBound(to: v4l2_ext_controls.self), set: false)
            case VIDIOC.setExtendedControls: try extendedControls(argument.assumingMemoryBound(to: v4l2_ext_controls.self), set: true)
            default: throw DeviceErrno(ENOTTY)
            }
        }
    }

    private func queryCapabilities(_ capability: UnsafeMutablePointer<v4l2_capability>) {
        capability.pointee = v4l2_capability()
        CString.write(driver, into: &capability.pointee.driver)
        CString.write(card, into: &capability.pointee.card)
        CString.write(bus, into: &capability.pointee.bus_info)
        capability.pointee.version = (6 << 16) | (1 << 8)
        let device: UInt32 = kind == .camera
            ? UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
            : UInt32(V4L2_CAP_META_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
        capability.pointee.device_caps = device
        capability.pointee.capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_META_CAPTURE)
            | UInt32(V4L2_CAP_STREAMING) | UInt32(V4L2_CAP_DEVICE_CAPS)
    }

    private func enumerateFormat(_ description: UnsafeMutablePointer<v4l2_fmtdesc>) throws(DeviceErrno) {
        guard description.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue,
              Int(description.pointee.index) < formats.count else { throw DeviceErrno(EINVAL) }
        let format = formats[Int(description.pointee.index)]
        description.pointee.flags = format.fourCC.isJPEG ? UInt32(V4L2_FMT_FLAG_COMPRESSED) : 0
        description.pointee.pixelformat = format.fourCC.rawValue
        CString.write(format.name, into: &description.pointee.description)
    }

    private func enumerateSize(_ size: UnsafeMutablePointer<v4l2_frmsizeenum>) throws(DeviceErrno) {
        guard let format = formats.first(where: { $0.fourCC.rawValue == size.pointee.pixel_format }),
              Int(size.pointee.index) < format.sizes.count else { throw DeviceErrno(EINVAL) }
        let offered = format.sizes[Int(size.pointee.index)]
        size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
        size.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(offered.width), height: UInt32(offered.height))
    }

    private func enumerateInterval(_ interval: UnsafeMutablePointer<v4l2_frmivalenum>) throws(DeviceErrno) {
        guard let size = offeredSize(FourCC(rawValue: interval.pointee.pixel_format), Int(interval.pointee.width),
                                     Int(interval.pointee.height)),
              Int(interval.pointee.index) < size.framesPerSecond.count else { throw DeviceErrno(EINVAL) }
        let rate = FrameInterval(framesPerSecond: size.framesPerSecond[Int(interval.pointee.index)])
        interval.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
        interval.pointee.discrete = v4l2_fract(numerator: rate.numerator, denominator: rate.denominator)
    }

    private func offeredSize(_ fourCC: FourCC, _ width: Int, _ height: Int) -> Format.Size? {
        formats.first { $0.fourCC == fourCC }?.sizes.first { $0.width == width && $0.height == height }
    }

    /// The mode a driver would set for a request: the format if offered (else the first), the
    /// nearest offered size.
    private func adjustedMode(_ fourCC: FourCC, _ width: Int, _ height: Int) -> EmulatedDeviceState.Mode? {
        guard let format = formats.first(where: { $0.fourCC == fourCC }) ?? formats.first,
              let size = format.sizes.min(by: {
                  abs($0.width - width) + abs($0.height - height) < abs($1.width - width) + abs($1.height - height)
              }) else { return nil }
        if format.fourCC.isJPEG {
            return .init(fourCC: format.fourCC, width: size.width, height: size.height, bytesPerLine: 0,
                         imageSize: size.width * size.height * 2)
        }
        let pixelFormat = format.fourCC.pixelFormat ?? .yuyv
        let bytesPerLine = pixelFormat.planeShape(0, width: size.width, height: size.height).rowBytes + rowPadding
        let layout = FrameLayout(fourCC: format.fourCC, width: size.width, height: size.height, bytesPerLine: bytesPerLine)
        return .init(fourCC: format.fourCC, width: size.width, height: size.height, bytesPerLine: bytesPerLine,
                     imageSize: layout?.byteCount ?? 0)
    }

    private func fill(_ format: UnsafeMutablePointer<v4l2_format>, with mode: EmulatedDeviceState.Mode) {
        format.pointee.fmt.pix = v4l2_pix_format()
        format.pointee.fmt.pix.width = UInt32(mode.width)
        format.pointee.fmt.pix.height = UInt32(mode.height)
        format.pointee.fmt.pix.pixelformat = mode.fourCC.rawValue
        format.pointee.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        format.pointee.fmt.pix.bytesperline = UInt32(mode.bytesPerLine)
        format.pointee.fmt.pix.sizeimage = UInt32(mode.imageSize)
        let color = reportedColor(for: mode.fourCC)
        format.pointee.fmt.pix.colorspace = color.colorspace
        format.pointee.fmt.pix.ycbcr_enc = color.ycbcrEncoding
        format.pointee.fmt.pix.quantization = color.quantization
        format.pointee.fmt.pix.xfer_func = color.transferFunction
    }

    private func currentMode() -> EmulatedDeviceState.Mode? {
        if let mode = state.format { return mode }
        guard let first = formats.first, let size = first.sizes.first else { return nil }
        return adjustedMode(first.fourCC, size.width, size.height)
    }

    private func getFormat(_ format: UnsafeMutablePointer<v4l2_format>) throws(DeviceErrno) {
        guard format.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, let mode = currentMode() else {
            throw DeviceErrno(EINVAL)
        }
        fill(format, with: mode)
    }

    private func setFormat(_ format: UnsafeMutablePointer<v4l2_format>, _ descriptor: Int32, apply: Bool) throws(DeviceErrno) {
        guard format.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue,
              let mode = adjustedMode(FourCC(rawValue: format.pointee.fmt.pix.pixelformat),
                                      Int(format.pointee.fmt.pix.width), Int(format.pointee.fmt.pix.height)) else {
            throw DeviceErrno(EINVAL)
        }
        if apply {
            // vb2: the format cannot change while buffers are allocated, by anyone.
            if state.owner != nil { throw DeviceErrno(EBUSY) }
            state.format = mode
            let rates = offeredSize(mode.fourCC, mode.width, mode.height)?.framesPerSecond ?? [30]
            state.interval = nearestInterval(to: state.interval, among: rates)
        }
        fill(format, with: mode)
    }

    private func nearestInterval(to wanted: FrameInterval, among rates: [Double]) -> FrameInterval {
        let intervals = rates.map { FrameInterval(framesPerSecond: $0) }
        return intervals.min { FrameIntervals.distance($0, wanted) < FrameIntervals.distance($1, wanted) }
            ?? FrameInterval(numerator: 1, denominator: 30)
    }

    private func parameters(_ parameters: UnsafeMutablePointer<v4l2_streamparm>, set: Bool) throws(DeviceErrno) {
        guard parameters.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, let mode = currentMode() else {
            throw DeviceErrno(EINVAL)
        }
        if set {
            if state.streaming { throw DeviceErrno(EBUSY) }
            let wanted = parameters.pointee.parm.capture.timeperframe
            let rates = offeredSize(mode.fourCC, mode.width, mode.height)?.framesPerSecond ?? [30]
            if wanted.numerator > 0, wanted.denominator > 0 {
                state.interval = nearestInterval(
                    to: FrameInterval(numerator: wanted.numerator, denominator: wanted.denominator), among: rates)
            }
        }
        parameters.pointee.parm.capture = v4l2_captureparm()
        parameters.pointee.parm.capture.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
        parameters.pointee.parm.capture.timeperframe = v4l2_fract(numerator: state.interval.numerator,
                                                                  denominator: state.interval.denominator)
    }

    private func requestBuffers(_ request: UnsafeMutablePointer<v4l2_requestbuffers>, _ descriptor: Int32) throws(DeviceErrno) {
        guard request.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue,
              request.pointee.memory == V4L2_MEMORY_MMAP.rawValue else { throw DeviceErrno(EINVAL) }
        if let owner = state.owner, owner != descriptor { throw DeviceErrno(EBUSY) }
        if state.streaming { throw DeviceErrno(EBUSY) }
        state.releaseBuffers()
        guard request.pointee.count > 0 else { return }
        guard let mode = currentMode() else { throw DeviceErrno(EINVAL) }
        state.format = mode
        state.buffers = EmulatedBuffers.allocate(Int(request.pointee.count), imageSize: mode.imageSize) {
            .init(memory: $0, length: $1, offset: $2)
        }
        state.counters.liveBuffers += state.buffers.count
        state.owner = descriptor
        state.counters.bufferAllocations += 1
        request.pointee.count = UInt32(state.buffers.count)
    }

    private func describe(_ index: Int, into buffer: UnsafeMutablePointer<v4l2_buffer>) {
        let stored = state.buffers[index]
        var flags = UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC) | UInt32(V4L2_BUF_FLAG_TSTAMP_SRC_EOF)
        switch stored.state {
        case .queued: flags |= UInt32(V4L2_BUF_FLAG_QUEUED)
        case .done: flags |= UInt32(V4L2_BUF_FLAG_DONE)
        case .application: break
        }
        EmulatedBuffers.describe(stored, index: index, type: V4L2_BUF_TYPE_VIDEO_CAPTURE, flags: flags, into: buffer)
    }

    private func queryBuffer(_ buffer: UnsafeMutablePointer<v4l2_buffer>) throws(DeviceErrno) {
        let index = Int(buffer.pointee.index)
        guard buffer.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, state.buffers.indices.contains(index) else {
            throw DeviceErrno(EINVAL)
        }
        describe(index, into: buffer)
    }

    private func queueBuffer(_ buffer: UnsafeMutablePointer<v4l2_buffer>, _ descriptor: Int32) throws(DeviceErrno) {
        guard state.owner == descriptor else { throw DeviceErrno(EBUSY) }
        let index = Int(buffer.pointee.index)
        guard buffer.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue,
              buffer.pointee.memory == V4L2_MEMORY_MMAP.rawValue,
              state.buffers.indices.contains(index), state.buffers[index].state == .application else {
            throw DeviceErrno(EINVAL)
        }
        state.buffers[index].state = .queued
        state.queued.append(index)
        state.counters.buffersQueued += 1
        describe(index, into: buffer)
    }

    private func dequeueBuffer(_ buffer: UnsafeMutablePointer<v4l2_buffer>, _ descriptor: Int32) throws(DeviceErrno) {
        guard state.owner == descriptor else { throw DeviceErrno(EBUSY) }
        guard state.streaming else { throw DeviceErrno(EINVAL) }
        advance(to: Self.monotonicMicroseconds())
        guard !state.done.isEmpty else { throw DeviceErrno(EAGAIN) }
        let index = state.done.removeFirst()
        state.buffers[index].state = .application
        describe(index, into: buffer)
        let stored = state.buffers[index]
        buffer.pointee.bytesused = UInt32(stored.bytesUsed)
        buffer.pointee.sequence = stored.sequence
        buffer.pointee.timestamp = timeval(tv_sec: Int(stored.timestamp / 1_000_000), tv_usec: Int(stored.timestamp % 1_000_000))
        if stored.damaged { buffer.pointee.flags |= UInt32(V4L2_BUF_FLAG_ERROR) }
        state.counters.buffersDequeued += 1
        state.counters.mostBuffersHeld = max(state.counters.mostBuffersHeld, state.heldByApplication)
    }

    private func streamOn(_ descriptor: Int32) throws(DeviceErrno) {
        guard state.owner == descriptor, !state.buffers.isEmpty else { throw DeviceErrno(EINVAL) }
        guard !state.streaming else { return }
        state.streaming = true
        state.streamStart = Self.monotonicMicroseconds()
        state.nextSequence = 0
        state.counters.streamOns += 1
        condition.broadcast()
    }

    private func streamOff(_ descriptor: Int32) throws(DeviceErrno) {
        guard state.owner == descriptor else { throw DeviceErrno(EBUSY) }
        if state.streaming { stopStreaming() }
        condition.broadcast()
    }

    // MARK: Controls

    private func control(_ id: UInt32) -> (index: Int, control: EmulatedControl)? {
        guard let index = state.controls.firstIndex(where: { $0.id.rawValue == id }) else { return nil }
        return (index, state.controls[index])
    }

    /// The control for a query id, honouring V4L2_CTRL_FLAG_NEXT_CTRL.
    private func queried(_ id: UInt32) throws(DeviceErrno) -> EmulatedControl {
        let next = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        if id & next != 0 {
            let after = id & ~(next | UInt32(V4L2_CTRL_FLAG_NEXT_COMPOUND))
            guard let found = state.controls.filter({ $0.id.rawValue > after }).min(by: { $0.id.rawValue < $1.id.rawValue }) else {
                throw DeviceErrno(EINVAL)
            }
            return found
        }
        guard let found = control(id)?.control else { throw DeviceErrno(EINVAL) }
        return found
    }

    private func flags(of control: EmulatedControl) -> UInt32 {
        let values = Dictionary(uniqueKeysWithValues: state.controls.map { ($0.id, $0.value) })
        var flags = control.flags
        if EmulatedControl.isInactive(control.id, values: values) { flags.insert(.inactive) }
        return flags.rawValue
    }

    private func queryControl(_ query: UnsafeMutablePointer<v4l2_queryctrl>) throws(DeviceErrno) {
        let found = try queried(query.pointee.id)
        query.pointee = v4l2_queryctrl()
        query.pointee.id = found.id.rawValue
        query.pointee.type = found.type.rawValue
        CString.write(found.name, into: &query.pointee.name)
        if found.type == .integer64 {
            // VIDIOC_QUERYCTRL cannot hold 64-bit ranges: V4L2 reports them as 0...0 step 0.
            query.pointee.minimum = 0
            query.pointee.maximum = 0
            query.pointee.step = 0
            query.pointee.default_value = 0
        } else {
            query.pointee.minimum = Int32(clamping: found.minimum)
            query.pointee.maximum = Int32(clamping: found.maximum)
            query.pointee.step = Int32(clamping: found.step)
            query.pointee.default_value = Int32(clamping: found.defaultValue)
        }
        query.pointee.flags = flags(of: found)
    }

    private func queryExtendedControl(_ query: UnsafeMutablePointer<v4l2_query_ext_ctrl>) throws(DeviceErrno) {
        let found = try queried(query.pointee.id)
        query.pointee = v4l2_query_ext_ctrl()
        query.pointee.id = found.id.rawValue
        query.pointee.type = found.type.rawValue
        CString.write(found.name, into: &query.pointee.name)
        query.pointee.minimum = found.minimum
        query.pointee.maximum = found.maximum
        query.pointee.step = UInt64(max(0, found.step))
        query.pointee.default_value = found.defaultValue
        query.pointee.flags = flags(of: found)
        query.pointee.elem_size = found.type == .integer64 ? 8 : 4
        query.pointee.elems = 1
    }

    private func queryMenu(_ query: UnsafeMutablePointer<v4l2_querymenu>) throws(DeviceErrno) {
        guard let found = control(query.pointee.id)?.control, found.type == .menu || found.type == .integerMenu,
              let entry = found.menuItem(at: Int64(query.pointee.index)) else { throw DeviceErrno(EINVAL) }
        if found.type == .menu {
            CString.write(entry.name ?? "", into: &query.pointee.name)
        } else {
            query.pointee.value = entry.value ?? 0
        }
    }

    private func readValue(_ id: UInt32) throws(DeviceErrno) -> Int64 {
        guard let found = control(id)?.control else { throw DeviceErrno(EINVAL) }
        if found.flags.contains(.writeOnly) || found.type == .button { throw DeviceErrno(EACCES) }
        return found.value
    }

    private func writeValue(_ value: Int64, to id: UInt32) throws(DeviceErrno) {
        guard let (index, found) = control(id) else { throw DeviceErrno(EINVAL) }
        if found.flags.contains(.readOnly) { throw DeviceErrno(EACCES) }
        switch found.type {
        case .button:
            return
        case .menu, .integerMenu:
            guard found.menuItem(at: value) != nil else { throw DeviceErrno(EINVAL) }
        case .boolean:
            guard value == 0 || value == 1 else { throw DeviceErrno(ERANGE) }
        default:
            guard value >= found.minimum, value <= found.maximum else { throw DeviceErrno(ERANGE) }
        }
        // The control core rounds to the nearest step.
        let step = max(1, found.step)
        let stepped = found.type == .integer ? found.minimum + ((value - found.minimum) + step / 2) / step * step : value
        state.controls[index].value = min(stepped, found.maximum)
    }

    private func getControl(_ control: UnsafeMutablePointer<v4l2_control>) throws(DeviceErrno) {
        if self.control(control.pointee.id)?.control.type == .integer64 { throw DeviceErrno(EINVAL) }
        control.pointee.value = Int32(truncatingIfNeeded: try readValue(control.pointee.id))
    }

    private func setControl(_ control: UnsafeMutablePointer<v4l2_control>) throws(DeviceErrno) {
        if self.control(control.pointee.id)?.control.type == .integer64 { throw DeviceErrno(EINVAL) }
        try writeValue(Int64(control.pointee.value), to: control.pointee.id)
        control.pointee.value = Int32(truncatingIfNeeded: state.controls.first { $0.id.rawValue == control.pointee.id }?.value ?? 0)
    }

    private func extendedControls(_ controls: UnsafeMutablePointer<v4l2_ext_controls>, set: Bool) throws(DeviceErrno) {
        guard let list = controls.pointee.controls else {
            if controls.pointee.count == 0 { return }
            throw DeviceErrno(EFAULT)
        }
        for index in 0..<Int(controls.pointee.count) {
            let id = list[index].id
            guard let found = control(id)?.control else {
                controls.pointee.error_idx = UInt32(index)
                throw DeviceErrno(EINVAL)
            }
            if set {
                let value = found.type == .integer64 ? list[index].value64 : Int64(list[index].value)
                try writeValue(value, to: id)
            } else {
                let value = try readValue(id)
                if found.type == .integer64 { list[index].value64 = value } else { list[index].value = Int32(truncatingIfNeeded: value) }
            }
        }
    }
}
