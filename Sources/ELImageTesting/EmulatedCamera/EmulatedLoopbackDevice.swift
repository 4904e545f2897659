import CV4L2
import ELImage
import ELImageCamera
import Foundation

/// A V4L2 loopback device in memory, modelled on v4l2loopback: a program writes frames into its
/// output side (what `VirtualCamera` does) and consumers (a video call, a browser) read them from
/// its capture side. Serve it through `EmulatedDeviceIO(_:loopbacks:)`.
///
/// It answers the output half of V4L2 as the driver does: QUERYCAP (output only until a writer
/// streams, then capture only, with `exclusiveCaps`, the setting Chrome needs; both at once
/// without), ENUM_FMT / ENUM_FRAMESIZES, G/S/TRY_FMT (a format it does not accept is replaced by
/// its first; a fixed format, `v4l2loopback-ctl set-caps`, is returned whatever was asked; sizes
/// are clamped and rounded; rows padded to `rowAlignment`), G/S_PARM, REQBUFS, QUERYBUF, mmap,
/// QBUF (the frame goes to every consumer at once), DQBUF, STREAMON/OFF and poll for POLLOUT.
///
/// On demand: consumers come and go (`attachConsumer()`, `EmulatedLoopbackConsumer.detach()`),
/// the writer's buffers stop coming back (`isStalled`), the device is reconfigured (removed and
/// made again with another fixed format: `reconfigure(_:)`; old descriptors get ENODEV) or
/// unplugged for good (`unplug()`). `counters` tell what the writer did.
public final class EmulatedLoopbackDevice: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is only touched with `condition` locked.

    /// How the driver is set up (its module parameters and `v4l2loopback-ctl` settings).
    public struct Configuration: Sendable, Hashable {
        /// A format and size fixed by the driver: every S_FMT returns it, whatever was asked.
        public struct FixedFormat: Sendable, Hashable {
            public var fourCC: FourCC
            public var width: Int
            public var height: Int
            public init(fourCC: FourCC, width: Int, height: Int) {
                self.fourCC = fourCC
                self.width = width
                self.height = height
            }
        }

        /// The formats a writer may set; S_FMT replaces any other by the first.
        public var acceptedFormats: [FourCC]
        /// The fixed format, or nil to take the writer's.
        public var fixedFormat: FixedFormat?
        /// `exclusive_caps=1`: the device advertises output only until a writer streams, then
        /// capture only (Chrome and WebRTC list only such devices). False advertises both.
        public var exclusiveCaps: Bool
        /// The largest size S_FMT allows (v4l2loopback's `max_width`/`max_height`).
        public var maximumWidth: Int
        public var maximumHeight: Int
        /// `bytesperline` is the row's bytes rounded up to a multiple of this.
        public var rowAlignment: Int
        /// The name QUERYCAP reports (`card_label`).
        public var card: String

        public init(acceptedFormats: [FourCC] = [.yuyv, .uyvy, .yu12, .nv12, .yv12, .rgb24], fixedFormat: FixedFormat? = nil,
                    exclusiveCaps: Bool = true, maximumWidth: Int = 8192, maximumHeight: Int = 8192, rowAlignment: Int = 1,
                    card: String = "ELImage Loopback") {
            self.acceptedFormats = acceptedFormats.isEmpty ? [.yuyv] : acceptedFormats
            self.fixedFormat = fixedFormat
            self.exclusiveCaps = exclusiveCaps
            self.maximumWidth = max(2, maximumWidth)
            self.maximumHeight = max(2, maximumHeight)
            self.rowAlignment = max(1, rowAlignment)
            self.card = card
        }
    }

    /// One frame as a consumer reads it.
    public struct Frame: Sendable {
        public var fourCC: FourCC
        public var width: Int
        public var height: Int
        /// The distance between luma rows in `data`.
        public var bytesPerLine: Int
        /// The bytes the writer queued (`bytesused` of them).
        public var data: [UInt8]
        /// The driver's count of frames written since the device was made.
        public var sequence: Int
        /// The buffer's timestamp as the writer set it, in microseconds.
        public var timestampMicroseconds: Int64

        /// The planes without row padding, one after another (what `ffmpeg -f rawvideo` reads);
        /// nil for a format ELImage has no layout for or a frame shorter than its planes.
        public var tightlyPacked: [UInt8]? {
            guard let format = fourCC.pixelFormat,
                  let layout = FrameLayout(fourCC: fourCC, width: width, height: height, bytesPerLine: bytesPerLine),
                  layout.byteCount <= data.count else { return nil }
            var packed: [UInt8] = []
            packed.reserveCapacity(format.byteCount(width: width, height: height))
            for (index, plane) in layout.planes.enumerated() {
                let shape = format.planeShape(index, width: width, height: height)
                for row in 0..<shape.height {
                    let start = plane.offset + row * plane.bytesPerRow
                    packed += data[start..<(start + shape.rowBytes)]
                }
            }
            return packed
        }
    }

    /// What the writer did to the device.
    public struct Counters: Hashable, Sendable {
        public var opens = 0
        public var closes = 0
        public var openDescriptors = 0
        /// S_FMT calls that set a format.
        public var formatsSet = 0
        public var bufferAllocations = 0
        public var liveBuffers = 0
        public var liveMappings = 0
        public var streamOns = 0
        public var streamOffs = 0
        /// Frames queued by the writer (QBUF on the output side).
        public var framesWritten = 0
        /// Frames whose `bytesused` was less than the format's image size.
        public var shortFrames = 0
        /// Times `reconfigure` made the device anew.
        public var reconfigurations = 0
    }

    struct Mode: Equatable {
        var fourCC: FourCC
        var width: Int
        var height: Int
        var bytesPerLine: Int
        var imageSize: Int
    }

    struct Buffer: EmulatedMappedBuffer {
        let memory: UnsafeMutableRawPointer
        let length: Int
        let offset: UInt32
        var queued = false
        var mappings = 0
    }

    struct ConsumerState {
        var frames: [Frame] = []
        var limit: Int
        var attached = true
    }

    struct State: EmulatedBufferStore {
        var configuration: Configuration
        /// Bumped by `reconfigure`: descriptors of an older generation are dead (ENODEV).
        var generation = 0
        var descriptors: [Int32: Int] = [:]
        var unplugged = false
        var format: Mode?
        var interval = FrameInterval(numerator: 1, denominator: 30)
        var owner: Int32?
        var buffers: [Buffer] = []
        var orphans: [Buffer] = []
        /// Buffers the driver has taken and gives back on DQBUF, oldest first.
        var done: [Int] = []
        var streaming = false
        var stalled = false
        var sequence = 0
        var consumers: [Int: ConsumerState] = [:]
        var nextConsumer = 0
        var counters = Counters()
    }

    /// The device node it answers for, e.g. "/dev/video10".
    public let path: String
    let condition = NSCondition()
    var state: State
    private let observed = Waitable(Counters())
    private let consumerFrames = Waitable([Int: Int]())

    public init(path: String = "/dev/video10", configuration: Configuration = Configuration()) {
        self.path = path
        state = State(configuration: configuration)
    }

    deinit {
        for buffer in state.buffers + state.orphans { buffer.memory.deallocate() }
    }

    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        condition.lock()
        defer {
            let counters = state.counters
            observed.update { $0 = counters }
            condition.unlock()
        }
        return try body()
    }

    // MARK: Consumers and failures

    /// A reader of the capture side, which gets every frame written from now on (it keeps the
    /// last `keeping` of them).
    public func attachConsumer(keeping: Int = 300) -> EmulatedLoopbackConsumer {
        let id = withLock { () -> Int in
            defer { state.nextConsumer += 1 }
            state.consumers[state.nextConsumer] = ConsumerState(limit: max(1, keeping))
            return state.nextConsumer
        }
        consumerFrames.update { $0[id] = 0 }
        return EmulatedLoopbackConsumer(device: self, id: id)
    }

    /// Consumers attached now.
    public var consumerCount: Int { withLock { state.consumers.values.filter(\.attached).count } }

    func frames(of consumer: Int) -> [Frame] { withLock { state.consumers[consumer]?.frames ?? [] } }

    func detach(_ consumer: Int) { withLock { state.consumers[consumer]?.attached = false } }

    func waitForFrames(of consumer: Int, count: Int, timeout: Duration) async -> Bool {
        await consumerFrames.wait(timeout: timeout) { ($0[consumer] ?? 0) >= count }
    }

    /// While true the driver keeps the writer's buffers: DQBUF says EAGAIN and poll never reports
    /// POLLOUT (a writer must drop frames rather than wait for ever).
    public var isStalled: Bool {
        get { withLock { state.stalled } }
        set {
            withLock {
                state.stalled = newValue
                condition.broadcast()
            }
        }
    }

    /// Removes the device and makes it again with `configuration`, as `v4l2loopback-ctl delete`
    /// then `add` (or `set-caps`) do: descriptors open now get ENODEV from every call and POLLERR |
    /// POLLHUP from poll; buffers they mapped stay valid until unmapped; the next open sees the
    /// new device. Consumers stay attached.
    public func reconfigure(_ configuration: Configuration) {
        withLock {
            state.configuration = configuration
            state.generation += 1
            state.format = nil
            if state.streaming { state.counters.streamOffs += 1 }
            state.streaming = false
            releaseBuffers()
            state.counters.reconfigurations += 1
            condition.broadcast()
        }
    }

    /// Removes the device for good: open descriptors get ENODEV, opening fails with ENOENT.
    public func unplug() {
        withLock {
            state.unplugged = true
            condition.broadcast()
        }
    }

    /// The configuration now.
    public var configuration: Configuration { withLock { state.configuration } }

    /// The format set by the last S_FMT: fourCC, size and row stride.
    public var currentFormat: (fourCC: FourCC, width: Int, height: Int, bytesPerLine: Int)? {
        withLock { state.format.map { ($0.fourCC, $0.width, $0.height, $0.bytesPerLine) } }
    }

    /// The frame interval set by S_PARM.
    public var frameInterval: FrameInterval { withLock { state.interval } }

    /// True while a writer streams.
    public var isStreaming: Bool { withLock { state.streaming } }

    /// What the writer did so far.
    public var counters: Counters { withLock { state.counters } }

    /// Waits until `condition` holds for the counters (each change is checked); false when
    /// `timeout` passed first.
    @discardableResult
    public func waitForCounters(timeout: Duration = Waitable<Int>.defaultTimeout,
                                until condition: @escaping @Sendable (Counters) -> Bool) async -> Bool {
        await observed.wait(timeout: timeout, until: condition)
    }

    /// The capabilities QUERYCAP reports now.
    public var capabilities: CameraCapabilities {
        withLock { CameraCapabilities(rawValue: deviceCapabilities()) }
    }

    // MARK: Helpers (lock held)

    func deviceCapabilities() -> UInt32 {
        let streaming = UInt32(V4L2_CAP_STREAMING) | UInt32(V4L2_CAP_READWRITE)
        let capture = UInt32(V4L2_CAP_VIDEO_CAPTURE), output = UInt32(V4L2_CAP_VIDEO_OUTPUT)
        guard state.configuration.exclusiveCaps else { return capture | output | streaming }
        return (state.streaming ? capture : output) | streaming
    }

    /// Frees the buffers, keeping mapped ones until their munmap.
    func releaseBuffers() {
        let freed = EmulatedBuffers.release(in: &state)
        state.counters.liveBuffers -= freed
        state.done = []
        state.owner = nil
    }

    /// Hands a queued frame to every consumer.
    func deliver(_ frame: Frame) {
        var receivers: [Int] = []
        for (id, consumer) in state.consumers where consumer.attached {
            state.consumers[id]?.frames.append(frame)
            if consumer.frames.count + 1 > consumer.limit { state.consumers[id]?.frames.removeFirst() }
            receivers.append(id)
        }
        consumerFrames.update { totals in
            for id in receivers { totals[id, default: 0] += 1 }
        }
    }
}

/// A reader of an `EmulatedLoopbackDevice`'s capture side (a video call watching the virtual
/// camera): it gets every frame written while it is attached.
public final class EmulatedLoopbackConsumer: Sendable {
    private let device: EmulatedLoopbackDevice
    private let id: Int

    init(device: EmulatedLoopbackDevice, id: Int) {
        self.device = device
        self.id = id
    }

    /// The frames received so far (the last ones, as many as it keeps).
    public var frames: [EmulatedLoopbackDevice.Frame] { device.frames(of: id) }

    /// Waits until `count` frames have arrived since attaching; false when `timeout` passed first.
    @discardableResult
    public func waitForFrames(_ count: Int, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await device.waitForFrames(of: id, count: count, timeout: timeout)
    }

    /// Stops reading (the consumer went away); the frames received stay readable.
    public func detach() { device.detach(id) }
}
