import CV4L2
import ELImage
import ELImageCamera
import Foundation

/// A camera in memory that follows the V4L2 contract, for demos and tests without hardware.
///
/// It answers the ioctls ELImage makes (QUERYCAP, ENUM_FMT/FRAMESIZES/FRAMEINTERVALS, G/S/TRY_FMT,
/// G/S_PARM, REQBUFS, QUERYBUF, QBUF, DQBUF, STREAMON/OFF, the control queries and G/S_CTRL,
/// G/S_EXT_CTRLS), maps real buffer memory, and fills queued buffers with real pictures: a photo
/// you give it (or colour bars) in YUYV, NV12, I420, ... or MJPEG. Frames arrive at the mode's
/// frame rate (`.realTime`) or when you call `emitFrames` (`.manual`), with monotonic timestamps
/// `start + sequence × interval` like a driver's. When no buffer is queued, the frame is lost and
/// its sequence number skipped, as in a driver.
///
/// Failures on demand: `openError` (EACCES, EBUSY), `unplug()` (ENODEV from every call, POLLERR
/// from poll), `isStalled` (poll never ready), `addSpuriousWakeups` (poll ready, DQBUF EAGAIN),
/// `corruptNextFrame()` (V4L2_BUF_FLAG_ERROR), and `supportsExtendedControlQuery = false` (an
/// older driver without VIDIOC_QUERY_EXT_CTRL). `counters` tells what the capture code did.
///
/// ```swift
/// let device = EmulatedVideoDevice(path: "/dev/video0", picture: photo)
/// let camera = Camera(device: "/dev/video0", io: EmulatedDeviceIO([device]))
/// ```
///
/// This lives in the library, not only in the tests, so that programs can be demonstrated and
/// their graphs tested (drops, camera switches, unplugging) on machines without a camera.
public final class EmulatedVideoDevice: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is only touched with `condition` locked.

    /// A format the device offers, with its sizes and the frame rates at each size.
    public struct Format: Hashable, Sendable {
        /// The pixel format code.
        public var fourCC: FourCC
        /// The name ENUM_FMT reports.
        public var name: String
        /// The sizes offered, in ENUM_FRAMESIZES order.
        public var sizes: [Size]

        /// A frame size and the frame rates offered at it.
        public struct Size: Hashable, Sendable {
            /// Width in pixels.
            public var width: Int
            /// Height in pixels.
            public var height: Int
            /// The frame rates, in ENUM_FRAMEINTERVALS order.
            public var framesPerSecond: [Double]
            public init(width: Int, height: Int, framesPerSecond: [Double]) {
                self.width = width
                self.height = height
                self.framesPerSecond = framesPerSecond
            }
        }

        public init(fourCC: FourCC, name: String? = nil, sizes: [Size]) {
            self.fourCC = fourCC
            self.name = name ?? Self.defaultName(fourCC)
            self.sizes = sizes
        }

        static func defaultName(_ fourCC: FourCC) -> String {
            switch fourCC {
            case .yuyv: "YUYV 4:2:2"
            case .nv12: "Y/UV 4:2:0"
            case .yu12: "Planar YUV 4:2:0"
            case .mjpeg: "Motion-JPEG"
            default: "\(fourCC)"
            }
        }
    }

    /// When frames arrive.
    public enum Pacing: Hashable, Sendable {
        /// At the mode's frame interval, from STREAMON.
        case realTime
        /// Only when `emitFrames` is called.
        case manual
    }

    /// What kind of node it is.
    public enum Kind: Hashable, Sendable {
        /// A video capture device.
        case camera
        /// A metadata capture node, like the second node UVC drivers create; not listed as a camera.
        case metadata
    }

    /// What the capture code did to the device.
    public struct Counters: Hashable, Sendable {
        /// Successful opens.
        public var opens = 0
        /// Closes of open descriptors.
        public var closes = 0
        /// Buffer mappings made.
        public var maps = 0
        /// Buffer mappings undone.
        public var unmaps = 0
        /// REQBUFS calls that allocated buffers.
        public var bufferAllocations = 0
        /// QBUF calls that succeeded.
        public var buffersQueued = 0
        /// DQBUF calls that returned a buffer.
        public var buffersDequeued = 0
        /// STREAMON calls that started streaming.
        public var streamOns = 0
        /// Times streaming stopped (STREAMOFF, or the owner closing).
        public var streamOffs = 0
        /// Frames the sensor made (including those lost for want of a queued buffer).
        public var framesProduced = 0
        /// Frames lost because no buffer was queued.
        public var framesLostByDriver = 0
        /// The buffer indices that carried a frame.
        public var buffersUsed: Set<Int> = []
        /// The most buffers the application held (dequeued, not yet queued back) at once while streaming.
        public var mostBuffersHeld = 0
        /// Descriptors open now.
        public var openDescriptors = 0
        /// Mappings not unmapped yet.
        public var liveMappings = 0
        /// Buffers whose memory is still allocated.
        public var liveBuffers = 0
        /// Polls that returned (ready, timed out or failed).
        public var polls = 0
    }

    /// The device node it answers for, e.g. "/dev/video0".
    public let path: String
    /// The name QUERYCAP reports.
    public let card: String
    /// The driver name QUERYCAP reports.
    public let driver: String
    /// The bus QUERYCAP reports.
    public let bus: String
    /// A camera or a metadata node.
    public let kind: Kind
    /// The formats it offers.
    public let formats: [Format]
    /// When frames arrive.
    public let pacing: Pacing
    /// The colour fields reported in G/S_FMT for uncompressed formats (JPEG formats report the
    /// JPEG colorspace).
    public let colorDescription: V4L2ColorDescription
    /// Bytes added to every luma row beyond the picture (`bytesperline` padding), to exercise strides.
    public let rowPadding: Int

    let condition = NSCondition()
    var state: EmulatedDeviceState
    /// `state.counters` as of the last change, for tests that wait on them.
    private let observedCounters = Waitable(Counters())

    /// - Parameters:
    ///   - path: the device node it answers for.
    ///   - card: the name QUERYCAP reports.
    ///   - driver: the driver name QUERYCAP reports.
    ///   - bus: the bus QUERYCAP reports.
    ///   - kind: a camera, or a metadata node (which offers no formats).
    ///   - formats: the offered modes; `EmulatedVideoDevice.webcamFormats` when `nil`.
    ///   - controls: its controls and their starting values.
    ///   - picture: what the camera sees, scaled to each mode; colour bars when `nil`.
    ///   - pacing: when frames arrive (at the mode's interval, or on `emitFrames()`).
    ///   - colorDescription: the colour fields reported for uncompressed formats.
    ///   - rowPadding: bytes added to every luma row beyond the picture.
    public init(path: String = "/dev/video0", card: String = "ELImage Emulated Camera",
                driver: String = "elimage-emu", bus: String = "platform:elimage-emulated",
                kind: Kind = .camera, formats: [Format]? = nil, controls: [EmulatedControl] = EmulatedControl.webcam,
                picture: RGBAImage? = nil, pacing: Pacing = .realTime,
                colorDescription: V4L2ColorDescription = V4L2ColorDescription(colorspace: V4L2_COLORSPACE_SRGB.rawValue),
                rowPadding: Int = 0) {
        self.path = path
        self.card = card
        self.driver = driver
        self.bus = bus
        self.kind = kind
        self.formats = kind == .camera ? formats ?? Self.webcamFormats : []
        self.pacing = pacing
        self.colorDescription = colorDescription
        self.rowPadding = max(0, rowPadding)
        state = EmulatedDeviceState(controls: controls, picture: picture)
    }

    deinit {
        state.freeAllMemory()
    }

    /// Modes of a typical USB webcam: YUYV up to 1280x720 (fast at small sizes, slow at large),
    /// NV12 at 640x480, MJPEG up to 1920x1080 at 30 and 60 fps.
    public static let webcamFormats: [Format] = [
        Format(fourCC: .yuyv, sizes: [
            Format.Size(width: 320, height: 240, framesPerSecond: [30, 15]),
            Format.Size(width: 640, height: 480, framesPerSecond: [30, 15]),
            Format.Size(width: 1280, height: 720, framesPerSecond: [10, 5]),
        ]),
        Format(fourCC: .nv12, sizes: [Format.Size(width: 640, height: 480, framesPerSecond: [30])]),
        Format(fourCC: .mjpeg, sizes: [
            Format.Size(width: 640, height: 480, framesPerSecond: [60, 30]),
            Format.Size(width: 1280, height: 720, framesPerSecond: [60, 30]),
            Format.Size(width: 1920, height: 1080, framesPerSecond: [30]),
        ]),
    ]

    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        condition.lock()
        defer {
            let counters = state.counters
            observedCounters.update { $0 = counters }  // under the lock: published in the order made
            condition.unlock()
        }
        return try body()
    }

    // MARK: Failure injection

    /// The errno the next opens fail with (e.g. `EACCES`, `EBUSY`); `nil` to open normally.
    public var openError: Int32? {
        get { withLock { state.openError } }
        set { withLock { state.openError = newValue } }
    }

    /// Unplugs the device: every call on an open descriptor fails with ENODEV, poll reports
    /// POLLERR | POLLHUP, and opening fails with ENOENT.
    public func unplug() {
        withLock {
            state.unplugged = true
            condition.broadcast()
        }
    }

    /// True once unplugged.
    public var isUnplugged: Bool { withLock { state.unplugged } }

    /// While true the sensor makes no frames: poll only times out.
    public var isStalled: Bool {
        get { withLock { state.stalled } }
        set {
            withLock {
                if state.stalled, !newValue { state.rebaseSchedule(now: Self.monotonicMicroseconds()) }
                state.stalled = newValue
                condition.broadcast()
            }
        }
    }

    /// The next `count` polls report a frame ready although none is (DQBUF then says EAGAIN).
    public func addSpuriousWakeups(_ count: Int) {
        withLock {
            state.spuriousWakeups += count
            condition.broadcast()
        }
    }

    /// The next frame is delivered with `V4L2_BUF_FLAG_ERROR`.
    public func corruptNextFrame() {
        withLock { state.corruptNext = true }
    }

    /// When false, VIDIOC_QUERY_EXT_CTRL answers ENOTTY, as older drivers do.
    public var supportsExtendedControlQuery: Bool {
        get { withLock { state.extendedControlQuery } }
        set { withLock { state.extendedControlQuery = newValue } }
    }

    /// When true, each frame carries its sequence number in binary in its top-left corner (see
    /// `EmulatedVideoDevice.frameNumber(in:)`).
    public var marksFrames: Bool {
        get { withLock { state.marksFrames } }
        set { withLock { state.marksFrames = newValue } }
    }

    // MARK: Frames

    /// Makes `count` frames now (manual pacing); each fills the oldest queued buffer, or is lost
    /// when none is queued. Does nothing while not streaming or stalled.
    public func emitFrames(_ count: Int = 1) {
        withLock {
            guard state.streaming, !state.stalled, !state.unplugged else { return }
            for _ in 0..<max(0, count) { produceFrame() }
            condition.broadcast()
        }
    }

    /// Serves `data` (tightly packed planes, or a JPEG) for frames in `fourCC` at `width` x
    /// `height` instead of the picture.
    public func setFrameData(_ data: [UInt8], fourCC: FourCC, width: Int, height: Int) {
        withLock { state.frameCache[EmulatedDeviceState.FrameKey(fourCC: fourCC, width: width, height: height)] = data }
    }

    /// The sequence number drawn by `marksFrames` into a frame read back as RGBA (or -1 when the
    /// corner does not hold one).
    public static func frameNumber(in image: RGBAImage) -> Int {
        let cells = min(EmulatedFrames.markerBits, image.width / 8)
        guard cells > 0, image.height >= 8 else { return -1 }
        var number = 0
        for cell in 0..<cells {
            let pixel = image[cell * 8 + 4, 4]
            let level = (Int(pixel.x) + Int(pixel.y) + Int(pixel.z)) / 3
            if level > 192 { number |= 1 << cell } else if level > 64 { return -1 }
        }
        return number
    }

    // MARK: Observing

    /// What the capture code did so far.
    public var counters: Counters { withLock { state.counters } }

    /// Waits until `condition` holds for the counters (each change is checked, no polling); false
    /// when `timeout` passed first.
    @discardableResult
    public func waitForCounters(timeout: Duration = Waitable<Int>.defaultTimeout,
                                until condition: @escaping @Sendable (Counters) -> Bool) async -> Bool {
        await observedCounters.wait(timeout: timeout, until: condition)
    }

    /// The mode set by the last S_FMT.
    public var currentFormat: (fourCC: FourCC, width: Int, height: Int)? {
        withLock { state.format.map { ($0.fourCC, $0.width, $0.height) } }
    }

    /// True while streaming.
    public var isStreaming: Bool { withLock { state.streaming } }

    /// The current value of control `id`.
    public func controlValue(_ id: CameraControlID) -> Int64? {
        withLock { state.controls.first { $0.id == id }?.value }
    }

    // MARK: Time

    /// The `CLOCK_MONOTONIC` time (microseconds) of frame `sequence` of the current stream: the
    /// timestamp its buffer carries (or will carry), when the sensor captured it. Nil while not
    /// streaming. With `marksFrames`, a frame read back from a recording tells its sequence, and
    /// so when it was captured.
    public func captureMicroseconds(ofFrame sequence: Int) -> Int64? {
        withLock { state.streaming ? state.dueTime(of: UInt32(truncatingIfNeeded: sequence)) : nil }
    }

    /// Now on `CLOCK_MONOTONIC`, the clock V4L2 stamps buffers with, in microseconds.
    public static func monotonicMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
