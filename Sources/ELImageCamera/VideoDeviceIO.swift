import Glibc

/// The system calls ELImageCamera makes on a video device: the seam between the capture code and
/// the kernel.
///
/// `LibV4L2DeviceIO` is the real one (libv4l2 and `poll(2)`); `EmulatedDeviceIO` serves emulated
/// cameras from memory, so the capture code runs unchanged without hardware. Every call reports
/// failure as the `errno` it got; callers turn that into an `ELImageError` naming the device.
///
/// Implementations must be safe to call from several threads at once: a camera's producer polls and
/// dequeues while another thread reads or sets controls.
public protocol VideoDeviceIO: Sendable {
    /// The V4L2 device nodes to look at when listing cameras (e.g. `/dev/video0`), in order.
    func devicePaths() -> [String]

    /// Opens `path` for reading and writing, non-blocking; returns the file descriptor.
    func open(_ path: String) throws(DeviceErrno) -> Int32

    /// Closes a descriptor returned by `open`.
    func close(_ descriptor: Int32)

    /// Performs the V4L2 ioctl `request` (a `VIDIOC_*` number) with `argument` pointing at its
    /// struct. Interrupted calls (`EINTR`) are retried by the implementation.
    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) throws(DeviceErrno)

    /// Maps `length` bytes of the device's buffer memory at `offset` (a buffer's `m.offset`),
    /// shared and readable/writable.
    func mmap(_ descriptor: Int32, length: Int, offset: Int64) throws(DeviceErrno) -> UnsafeMutableRawPointer

    /// Unmaps memory returned by `mmap`.
    func munmap(_ address: UnsafeMutableRawPointer, length: Int)

    /// Waits at most `milliseconds` for one of `events` on `descriptor` (a capture frame ready to
    /// dequeue: `.readable`; an output buffer to dequeue and fill: `.writable`), or an error;
    /// returns the events that happened, empty when the time ran out.
    func poll(_ descriptor: Int32, for events: PollEvents, timeout milliseconds: Int32) throws(DeviceErrno) -> PollEvents
}

extension VideoDeviceIO {
    /// Waits at most `milliseconds` for a capture frame (or an event, or an error).
    public func poll(_ descriptor: Int32, timeout milliseconds: Int32) throws(DeviceErrno) -> PollEvents {
        try poll(descriptor, for: [.readable, .priority], timeout: milliseconds)
    }
}

/// A failed system call's error number (`ENODEV`, `EBUSY`, `EAGAIN`, ...).
public struct DeviceErrno: Error, Sendable, Hashable, CustomStringConvertible {
    /// The errno value.
    public let code: Int32

    public init(_ code: Int32) { self.code = code }

    /// The C name of the error, e.g. "ENODEV", or "errno N" for one this table does not know.
    public var name: String { Self.names[code] ?? "errno \(code)" }

    public var description: String { name }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO",
        EBADF: "EBADF", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EFAULT: "EFAULT",
        EBUSY: "EBUSY", ENODEV: "ENODEV", EINVAL: "EINVAL", ENOSPC: "ENOSPC", ERANGE: "ERANGE",
        ENOTTY: "ENOTTY", EPIPE: "EPIPE", ETIMEDOUT: "ETIMEDOUT", ENOSYS: "ENOSYS",
        EOPNOTSUPP: "EOPNOTSUPP", EPROTO: "EPROTO", ENOLINK: "ENOLINK", ESHUTDOWN: "ESHUTDOWN",
    ]
}

/// What `poll` saw on a video device.
public struct PollEvents: OptionSet, Sendable, Hashable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// A filled buffer can be dequeued (`POLLIN`).
    public static let readable = PollEvents(rawValue: 0x001)
    /// An event is pending (`POLLPRI`).
    public static let priority = PollEvents(rawValue: 0x002)
    /// An output buffer can be dequeued to fill (`POLLOUT`).
    public static let writable = PollEvents(rawValue: 0x004)
    /// The device reported an error: not streaming, or gone (`POLLERR`).
    public static let error = PollEvents(rawValue: 0x008)
    /// The device hung up, e.g. it was unplugged (`POLLHUP`).
    public static let hangUp = PollEvents(rawValue: 0x010)
    /// The descriptor is not open (`POLLNVAL`).
    public static let invalid = PollEvents(rawValue: 0x020)
}
