import CV4L2
import ELImage
import Glibc

/// What a device node is: driver, name, bus and capabilities (`VIDIOC_QUERYCAP`), with the formats,
/// sizes and frame rates it offers.
public struct CameraDeviceInfo: Hashable, Sendable {
    /// The device node, e.g. `/dev/video0`.
    public var path: String
    /// The kernel driver, e.g. "uvcvideo".
    public var driver: String
    /// The device's name, e.g. "HD Pro Webcam C920".
    public var card: String
    /// Where it is attached, e.g. "usb-0000:00:14.0-1".
    public var bus: String
    /// The driver's version, "major.minor.patch".
    public var driverVersion: String
    /// What this node can do (`device_caps` when the driver reports them).
    public var capabilities: CameraCapabilities
    /// The formats it offers; empty for nodes that do not capture video.
    public var formats: [CameraFormatDescription]
    /// The formats its output side takes (a v4l2loopback node); empty for nodes without one.
    public var outputFormats: [CameraFormatDescription] = []

    /// True for nodes that capture video frames by streaming (metadata nodes are not).
    public var isCaptureDevice: Bool {
        capabilities.contains(.videoCapture) && capabilities.contains(.streaming)
    }

    /// True for nodes that take video frames by streaming: a virtual camera (v4l2loopback) that
    /// a `VirtualCamera` can write to.
    public var isOutputDevice: Bool {
        capabilities.contains(.videoOutput) && capabilities.contains(.streaming)
    }

    /// True for a v4l2loopback node.
    public var isLoopback: Bool { driver == "v4l2 loopback" }
}

extension CameraDeviceInfo: CustomStringConvertible {
    /// E.g. "/dev/video0: HD Pro Webcam C920 (uvcvideo, usb-0000:00:14.0-1), formats MJPG, YUYV".
    public var description: String {
        let formats = self.formats.isEmpty ? "no capture formats" : "formats " + self.formats.map { "\($0.fourCC)" }.joined(separator: ", ")
        return "\(path): \(card) (\(driver), \(bus)), \(formats)"
    }
}

/// V4L2 device capabilities (`V4L2_CAP_*`).
public struct CameraCapabilities: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let videoCapture = CameraCapabilities(rawValue: UInt32(V4L2_CAP_VIDEO_CAPTURE))
    public static let videoCaptureMultiplanar = CameraCapabilities(rawValue: UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE))
    public static let videoOutput = CameraCapabilities(rawValue: UInt32(V4L2_CAP_VIDEO_OUTPUT))
    public static let memoryToMemory = CameraCapabilities(rawValue: UInt32(V4L2_CAP_VIDEO_M2M))
    public static let metadataCapture = CameraCapabilities(rawValue: UInt32(V4L2_CAP_META_CAPTURE))
    public static let readWrite = CameraCapabilities(rawValue: UInt32(V4L2_CAP_READWRITE))
    public static let streaming = CameraCapabilities(rawValue: UInt32(V4L2_CAP_STREAMING))
    public static let deviceCapabilities = CameraCapabilities(rawValue: UInt32(V4L2_CAP_DEVICE_CAPS))

    /// Short names, e.g. "capture, streaming".
    public var description: String {
        let names: [(CameraCapabilities, String)] = [
            (.videoCapture, "capture"), (.videoCaptureMultiplanar, "capture-mplane"), (.videoOutput, "output"),
            (.memoryToMemory, "m2m"), (.metadataCapture, "metadata"), (.streaming, "streaming"),
            (.readWrite, "read/write"),
        ]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "none" : present.joined(separator: ", ")
    }
}

/// A device node that could not be opened or queried while listing, and why.
public struct UnavailableDevice: Sendable, Equatable, CustomStringConvertible {
    /// The device node.
    public var path: String
    /// Why it could not be read (e.g. EACCES: add your user to the 'video' group).
    public var error: ELImageError

    /// E.g. "/dev/video1: cannot be read: <the error and what to do>".
    public var description: String { "\(path): cannot be read: \(error)" }
}

/// The result of listing devices: the capture devices, the output devices, and the nodes that
/// could not be read.
public struct CameraDeviceScan: Sendable, Equatable {
    /// Video capture devices, in device-number order.
    public var devices: [CameraDeviceInfo]
    /// Video output devices (virtual cameras a `VirtualCamera` writes to), in device-number
    /// order. A loopback device that advertises both sides is in both lists.
    public var outputs: [CameraDeviceInfo] = []
    /// Nodes that failed to open or answer (e.g. permission denied), with the error.
    public var unavailable: [UnavailableDevice]
}

/// An open V4L2 device: query it, read its formats, read and set its controls.
///
/// ```swift
/// for device in CameraDevice.list().devices { print(device.card, device.formats.map(\.fourCC)) }
/// let device = try CameraDevice(path: "/dev/video0")
/// try device.setValue(120, for: .brightness)
/// ```
///
/// The descriptor closes on `close()` or when the object goes away. Calls may come from any thread.
public final class CameraDevice: Sendable {
    /// The device node.
    public let path: String
    let io: any VideoDeviceIO
    /// The open descriptor, `nil` once closed. Held during each ioctl, so `close()` cannot pull
    /// the descriptor from under a call (all ioctls ELImage makes are non-blocking).
    private let descriptor: Locked<Int32?>

    /// Opens `path` (read-write, non-blocking).
    /// - Throws: `ELImageError.io` with the errno: `ENOENT` (no such device), `EACCES` (add your
    ///   user to the 'video' group), `EBUSY`, ...
    public init(path: String, io: any VideoDeviceIO = LibV4L2DeviceIO()) throws {
        self.path = path
        self.io = io
        do throws(DeviceErrno) {
            descriptor = Locked(try io.open(path))
        } catch {
            throw DeviceErrors.failure(error, "open", path: path)
        }
    }

    deinit { close() }

    /// Closes the device; later calls fail with `EBADF`.
    public func close() {
        let closing = descriptor.withLock { value -> Int32? in
            defer { value = nil }
            return value
        }
        if let closing { io.close(closing) }
    }

    /// True until `close()`.
    public var isOpen: Bool { descriptor.withLock { $0 != nil } }

    // MARK: Raw calls

    /// Performs `request` on `argument`, reporting the errno.
    func call<Argument>(_ request: UInt, _ argument: inout Argument) throws(DeviceErrno) {
        let result: Result<Void, DeviceErrno> = descriptor.withLock { value in
            guard let fd = value else { return .failure(DeviceErrno(EBADF)) }
            return withUnsafeMutableBytes(of: &argument) { bytes in
                guard let base = bytes.baseAddress else { return .failure(DeviceErrno(EFAULT)) }
                do throws(DeviceErrno) {
                    try io.ioctl(fd, request, base)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
        }
        try result.get()
    }

    /// Performs `request`, turning a failure into an `ELImageError` that names `operation`.
    func perform<Argument>(_ request: UInt, _ argument: inout Argument, _ operation: String? = nil) throws {
        do throws(DeviceErrno) {
            try call(request, &argument)
        } catch {
            throw DeviceErrors.failure(error, operation ?? "\(VIDIOC.name(of: request)) on", path: path)
        }
    }

    /// Maps buffer memory.
    func map(length: Int, offset: Int64) throws(DeviceErrno) -> UnsafeMutableRawPointer {
        guard let fd = descriptor.withLock({ $0 }) else { throw DeviceErrno(EBADF) }
        return try io.mmap(fd, length: length, offset: offset)
    }

    /// Waits for a frame (`.readable`) or a free output buffer (`.writable`). Only the thread that
    /// streams polls, and it gives the stream up before the device closes.
    func poll(for events: PollEvents = [.readable, .priority], timeout milliseconds: Int32) throws(DeviceErrno) -> PollEvents {
        guard let fd = descriptor.withLock({ $0 }) else { throw DeviceErrno(EBADF) }
        return try io.poll(fd, for: events, timeout: milliseconds)
    }

    // MARK: Queries

    /// Driver, name, bus, capabilities and every format with its sizes and frame rates.
    public func info() throws -> CameraDeviceInfo {
        var capability = v4l2_capability()
        try perform(VIDIOC.querycap, &capability, "query capabilities (VIDIOC_QUERYCAP) of")
        let all = CameraCapabilities(rawValue: capability.capabilities)
        let capabilities = all.contains(.deviceCapabilities)
            ? CameraCapabilities(rawValue: capability.device_caps) : all
        let version = capability.version
        var info = CameraDeviceInfo(
            path: path, driver: CString.read(capability.driver), card: CString.read(capability.card),
            bus: CString.read(capability.bus_info),
            driverVersion: "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)",
            capabilities: capabilities, formats: [])
        if info.isCaptureDevice { info.formats = try formats() }
        if info.isOutputDevice { info.outputFormats = try formats(type: V4L2_BUF_TYPE_VIDEO_OUTPUT) }
        return info
    }

    /// The capture formats (or those of the output side, with `type` `V4L2_BUF_TYPE_VIDEO_OUTPUT`)
    /// with their sizes and frame rates (`VIDIOC_ENUM_FMT`, `VIDIOC_ENUM_FRAMESIZES`,
    /// `VIDIOC_ENUM_FRAMEINTERVALS`).
    public func formats(type: v4l2_buf_type = V4L2_BUF_TYPE_VIDEO_CAPTURE) throws -> [CameraFormatDescription] {
        var result: [CameraFormatDescription] = []
        for index in 0..<UInt32(256) {
            var description = v4l2_fmtdesc()
            description.index = index
            description.type = type.rawValue
            do throws(DeviceErrno) {
                try call(VIDIOC.enumFormat, &description)
            } catch {
                if error.code == EINVAL { break }
                throw DeviceErrors.failure(error, "list formats (VIDIOC_ENUM_FMT) of", path: path)
            }
            let fourCC = FourCC(rawValue: description.pixelformat)
            result.append(CameraFormatDescription(
                fourCC: fourCC, name: CString.read(description.description),
                isCompressed: description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                isEmulated: description.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                sizes: try frameSizes(of: fourCC)))
        }
        return result
    }

    /// The sizes `fourCC` comes in.
    func frameSizes(of fourCC: FourCC) throws -> FrameSizes {
        var sizes: [FrameSizeInfo] = []
        for index in 0..<UInt32(1024) {
            var size = v4l2_frmsizeenum()
            size.index = index
            size.pixel_format = fourCC.rawValue
            do throws(DeviceErrno) {
                try call(VIDIOC.enumFrameSizes, &size)
            } catch {
                if error.code == EINVAL || error.code == ENOTTY { break }
                throw DeviceErrors.failure(error, "list \(fourCC) frame sizes (VIDIOC_ENUM_FRAMESIZES) of", path: path)
            }
            switch size.type {
            case V4L2_FRMSIZE_TYPE_DISCRETE.rawValue:
                let width = Int(size.discrete.width), height = Int(size.discrete.height)
                sizes.append(FrameSizeInfo(width: width, height: height,
                                           intervals: try frameIntervals(of: fourCC, width: width, height: height)))
            default:
                let range = size.stepwise
                return .stepwise(minWidth: Int(range.min_width), maxWidth: Int(range.max_width),
                                 stepWidth: max(1, Int(range.step_width)), minHeight: Int(range.min_height),
                                 maxHeight: Int(range.max_height), stepHeight: max(1, Int(range.step_height)))
            }
        }
        return sizes.isEmpty ? .unknown : .discrete(sizes)
    }

    /// The frame intervals `fourCC` offers at `width` x `height`.
    func frameIntervals(of fourCC: FourCC, width: Int, height: Int) throws -> FrameIntervals {
        var intervals: [FrameInterval] = []
        for index in 0..<UInt32(256) {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = fourCC.rawValue
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            do throws(DeviceErrno) {
                try call(VIDIOC.enumFrameIntervals, &interval)
            } catch {
                if error.code == EINVAL || error.code == ENOTTY { break }
                throw DeviceErrors.failure(
                    error, "list \(fourCC) \(width)x\(height) frame rates (VIDIOC_ENUM_FRAMEINTERVALS) of", path: path)
            }
            switch interval.type {
            case V4L2_FRMIVAL_TYPE_DISCRETE.rawValue:
                intervals.append(FrameInterval(numerator: interval.discrete.numerator,
                                               denominator: interval.discrete.denominator))
            default:
                let range = interval.stepwise
                return .stepwise(minimum: FrameInterval(numerator: range.min.numerator, denominator: range.min.denominator),
                                 maximum: FrameInterval(numerator: range.max.numerator, denominator: range.max.denominator),
                                 step: FrameInterval(numerator: range.step.numerator, denominator: range.step.denominator))
            }
        }
        return intervals.isEmpty ? .unknown : .discrete(intervals)
    }

    // MARK: Listing

    /// Every V4L2 video capture device `io` can see (`/dev/video*`), with its formats, and every
    /// video output device (`outputs`). Other nodes (metadata, codecs) are left out; nodes that
    /// cannot be opened are listed in `unavailable` with the reason.
    public static func list(io: any VideoDeviceIO = LibV4L2DeviceIO()) -> CameraDeviceScan {
        var scan = CameraDeviceScan(devices: [], unavailable: [])
        for path in io.devicePaths() {
            do {
                let device = try CameraDevice(path: path, io: io)
                defer { device.close() }
                let info = try device.info()
                if info.isCaptureDevice { scan.devices.append(info) }
                if info.isOutputDevice { scan.outputs.append(info) }
            } catch let error as ELImageError {
                scan.unavailable.append(UnavailableDevice(path: path, error: error))
            } catch {
                scan.unavailable.append(UnavailableDevice(
                    path: path, error: .invalidState(node: path, reason: "\(error)")))
            }
        }
        return scan
    }
}
