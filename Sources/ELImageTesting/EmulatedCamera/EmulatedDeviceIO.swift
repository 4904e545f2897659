import ELImage
import ELImageCamera
import Glibc

/// The device calls served by emulated devices instead of the kernel: pass it as the `io` of a
/// `Camera`, a `CameraDevice` or a `VirtualCamera`, or to `CameraDevice.list(io:)`.
///
/// It serves cameras (`EmulatedVideoDevice`) and loopback output devices
/// (`EmulatedLoopbackDevice`, what v4l2loopback makes). Devices can be added and removed while
/// running (hot-plug); a removed device is unplugged.
public final class EmulatedDeviceIO: VideoDeviceIO {
    private struct Registry {
        var nodes: [any EmulatedDeviceNode]
        var descriptors: [Int32: any EmulatedDeviceNode] = [:]
        var nextDescriptor: Int32 = 1000
    }

    private let registry: Locked<Registry>

    /// Serves `devices` (cameras) and `loopbacks` (output devices), listed cameras first.
    public init(_ devices: [EmulatedVideoDevice], loopbacks: [EmulatedLoopbackDevice] = []) {
        registry = Locked(Registry(nodes: devices + loopbacks.map { $0 as any EmulatedDeviceNode }))
    }

    /// The cameras now present.
    public var devices: [EmulatedVideoDevice] { registry.withLock { $0.nodes.compactMap { $0 as? EmulatedVideoDevice } } }

    /// The loopback output devices now present.
    public var loopbacks: [EmulatedLoopbackDevice] {
        registry.withLock { $0.nodes.compactMap { $0 as? EmulatedLoopbackDevice } }
    }

    /// Plugs in another camera.
    public func add(_ device: EmulatedVideoDevice) {
        registry.withLock { $0.nodes.append(device) }
    }

    /// Plugs in another loopback device.
    public func add(_ loopback: EmulatedLoopbackDevice) {
        registry.withLock { $0.nodes.append(loopback) }
    }

    /// Unplugs the device at `path` and removes it from the list.
    public func remove(path: String) {
        let removed = registry.withLock { registry in
            defer { registry.nodes.removeAll { $0.path == path } }
            return registry.nodes.filter { $0.path == path }
        }
        removed.forEach { $0.unplug() }
    }

    /// The camera at `path`.
    public func device(at path: String) -> EmulatedVideoDevice? {
        registry.withLock { $0.nodes.first { $0.path == path } as? EmulatedVideoDevice }
    }

    /// The loopback device at `path`.
    public func loopback(at path: String) -> EmulatedLoopbackDevice? {
        registry.withLock { $0.nodes.first { $0.path == path } as? EmulatedLoopbackDevice }
    }

    private func node(for descriptor: Int32) -> (any EmulatedDeviceNode)? {
        registry.withLock { $0.descriptors[descriptor] }
    }

    public func devicePaths() -> [String] {
        registry.withLock { $0.nodes.map(\.path) }
    }

    public func open(_ path: String) throws(DeviceErrno) -> Int32 {
        guard let node = registry.withLock({ $0.nodes.first { $0.path == path } }) else { throw DeviceErrno(ENOENT) }
        let descriptor = registry.withLock { registry in
            defer { registry.nextDescriptor += 1 }
            return registry.nextDescriptor
        }
        try node.open(descriptor: descriptor)
        registry.withLock { $0.descriptors[descriptor] = node }
        return descriptor
    }

    public func close(_ descriptor: Int32) {
        let node = registry.withLock { $0.descriptors.removeValue(forKey: descriptor) }
        node?.close(descriptor: descriptor)
    }

    public func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) throws(DeviceErrno) {
        guard let node = node(for: descriptor) else { throw DeviceErrno(EBADF) }
        try node.ioctl(descriptor: descriptor, request: request, argument: argument)
    }

    public func mmap(_ descriptor: Int32, length: Int, offset: Int64) throws(DeviceErrno) -> UnsafeMutableRawPointer {
        guard let node = node(for: descriptor) else { throw DeviceErrno(EBADF) }
        return try node.mmap(descriptor: descriptor, length: length, offset: offset)
    }

    public func munmap(_ address: UnsafeMutableRawPointer, length: Int) {
        // Removed devices may still have mapped buffers: ask those with open descriptors too.
        let candidates = registry.withLock { $0.nodes + Array($0.descriptors.values) }
        for node in candidates where node.munmap(address) { return }
    }

    public func poll(_ descriptor: Int32, for events: PollEvents, timeout milliseconds: Int32) throws(DeviceErrno) -> PollEvents {
        guard let node = node(for: descriptor) else { return [.invalid] }
        return node.poll(descriptor: descriptor, events: events, timeout: milliseconds)
    }
}

/// One emulated device node: what `EmulatedDeviceIO` forwards each call to.
protocol EmulatedDeviceNode: AnyObject, Sendable {
    var path: String { get }
    func unplug()
    func open(descriptor: Int32) throws(DeviceErrno)
    func close(descriptor: Int32)
    func ioctl(descriptor: Int32, request: UInt, argument: UnsafeMutableRawPointer) throws(DeviceErrno)
    func mmap(descriptor: Int32, length: Int, offset: Int64) throws(DeviceErrno) -> UnsafeMutableRawPointer
    /// Unmaps `address` if it is one of this node's buffers; false if it is not.
    func munmap(_ address: UnsafeMutableRawPointer) -> Bool
    func poll(descriptor: Int32, events: PollEvents, timeout milliseconds: Int32) -> PollEvents
}

extension EmulatedVideoDevice: EmulatedDeviceNode {
    func poll(descriptor: Int32, events: PollEvents, timeout milliseconds: Int32) -> PollEvents {
        poll(descriptor: descriptor, timeout: milliseconds)
    }
}
