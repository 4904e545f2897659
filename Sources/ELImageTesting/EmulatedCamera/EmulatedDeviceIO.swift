import ELImage
import ELImageCamera
import Glibc

/// The device calls served by emulated cameras instead of the kernel: pass it as the `io` of a
/// `Camera` or `CameraDevice`, or to `CameraDevice.list(io:)`.
///
/// Devices can be added and removed while running (hot-plug); a removed device is unplugged.
public final class EmulatedDeviceIO: VideoDeviceIO {
    private struct Registry {
        var devices: [EmulatedVideoDevice]
        var descriptors: [Int32: EmulatedVideoDevice] = [:]
        var nextDescriptor: Int32 = 1000
    }

    private let registry: Locked<Registry>

    public init(_ devices: [EmulatedVideoDevice]) {
        registry = Locked(Registry(devices: devices))
    }

    /// The devices now present.
    public var devices: [EmulatedVideoDevice] { registry.withLock { $0.devices } }

    /// Plugs in another device.
    public func add(_ device: EmulatedVideoDevice) {
        registry.withLock { $0.devices.append(device) }
    }

    /// Unplugs the device at `path` and removes it from the list.
    public func remove(path: String) {
        let removed = registry.withLock { registry in
            defer { registry.devices.removeAll { $0.path == path } }
            return registry.devices.filter { $0.path == path }
        }
        removed.forEach { $0.unplug() }
    }

    /// The device at `path`.
    public func device(at path: String) -> EmulatedVideoDevice? {
        registry.withLock { $0.devices.first { $0.path == path } }
    }

    private func device(for descriptor: Int32) -> EmulatedVideoDevice? {
        registry.withLock { $0.descriptors[descriptor] }
    }

    public func devicePaths() -> [String] {
        registry.withLock { $0.devices.map(\.path) }
    }

    public func open(_ path: String) throws(DeviceErrno) -> Int32 {
        guard let device = device(at: path) else { throw DeviceErrno(ENOENT) }
        let descriptor = registry.withLock { registry in
            defer { registry.nextDescriptor += 1 }
            return registry.nextDescriptor
        }
        try device.open(descriptor: descriptor)
        registry.withLock { $0.descriptors[descriptor] = device }
        return descriptor
    }

    public func close(_ descriptor: Int32) {
        let device = registry.withLock { $0.descriptors.removeValue(forKey: descriptor) }
        device?.close(descriptor: descriptor)
    }

    public func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) throws(DeviceErrno) {
        guard let device = device(for: descriptor) else { throw DeviceErrno(EBADF) }
        try device.ioctl(descriptor: descriptor, request: request, argument: argument)
    }

    public func mmap(_ descriptor: Int32, length: Int, offset: Int64) throws(DeviceErrno) -> UnsafeMutableRawPointer {
        guard let device = device(for: descriptor) else { throw DeviceErrno(EBADF) }
        return try device.mmap(descriptor: descriptor, length: length, offset: offset)
    }

    public func munmap(_ address: UnsafeMutableRawPointer, length: Int) {
        // Removed devices may still have mapped buffers: ask those with open descriptors too.
        let candidates = registry.withLock { $0.devices + $0.descriptors.values }
        for device in candidates where device.munmap(address) { return }
    }

    public func poll(_ descriptor: Int32, timeout milliseconds: Int32) throws(DeviceErrno) -> PollEvents {
        guard let device = device(for: descriptor) else { return [.invalid] }
        return device.poll(descriptor: descriptor, timeout: milliseconds)
    }
}
