import CV4L2
import Foundation

/// The real device calls: libv4l2's `v4l2_open`/`v4l2_ioctl`/`v4l2_mmap`/`v4l2_munmap`/`v4l2_close`
/// and `poll(2)`.
///
/// libv4l2 passes native formats through and adds converted ("emulated") ones for cameras whose
/// native formats are exotic (Bayer, vendor YUV); ELImage prefers the native formats and marks the
/// others as emulated.
public struct LibV4L2DeviceIO: VideoDeviceIO {
    /// The folder whose `video<N>` entries are listed (`/dev`).
    public let deviceFolder: String

    public init(deviceFolder: String = "/dev") {
        self.deviceFolder = deviceFolder
    }

    public func devicePaths() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: deviceFolder)) ?? []
        let numbered = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)) else { return nil }
            return (number, name)
        }
        return numbered.sorted { $0.0 < $1.0 }.map { deviceFolder + "/" + $0.1 }
    }

    public func open(_ path: String) throws(DeviceErrno) -> Int32 {
        let descriptor = elimage_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw DeviceErrno(errno) }
        return descriptor
    }

    public func close(_ descriptor: Int32) {
        _ = v4l2_close(descriptor)
    }

    public func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) throws(DeviceErrno) {
        while true {
            if elimage_v4l2_ioctl(descriptor, request, argument) != -1 { return }
            let code = errno
            if code != EINTR { throw DeviceErrno(code) }
        }
    }

    public func mmap(_ descriptor: Int32, length: Int, offset: Int64) throws(DeviceErrno) -> UnsafeMutableRawPointer {
        let address = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, offset)
        // MAP_FAILED is (void *)-1, which Swift does not import.
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw DeviceErrno(errno)
        }
        return address
    }

    public func munmap(_ address: UnsafeMutableRawPointer, length: Int) {
        _ = v4l2_munmap(address, length)
    }

    public func poll(_ descriptor: Int32, for events: PollEvents, timeout milliseconds: Int32) throws(DeviceErrno) -> PollEvents {
        var request = pollfd(fd: descriptor, events: events.rawValue, revents: 0)
        while true {
            let result = Foundation.poll(&request, 1, milliseconds)
            if result >= 0 { return result == 0 ? [] : PollEvents(rawValue: request.revents) }
            let code = errno
            if code != EINTR { throw DeviceErrno(code) }
        }
    }
}
