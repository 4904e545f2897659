import ELImage

/// What a `VirtualCamera` node and its writer thread share: the device opened by the node (until
/// the writer takes it), the mode the render thread packs frames for, the size of the source's
/// frames, and the statistics.
final class VirtualCameraLink: Sendable {
    private struct State {
        var openedDevice: CameraDevice?
        var sourceSize: (width: Int, height: Int)?
        var statistics = VirtualCameraStatistics()
    }

    let path: String
    let io: any VideoDeviceIO
    let settings: VirtualCameraSettings
    private let messenger: NodeMessenger
    private let state: Locked<State>

    init(path: String, io: any VideoDeviceIO, settings: VirtualCameraSettings, device: CameraDevice,
         messenger: NodeMessenger) {
        self.path = path
        self.io = io
        self.settings = settings
        self.messenger = messenger
        state = Locked(State(openedDevice: device))
    }

    var statistics: VirtualCameraStatistics { state.withLock { $0.statistics } }

    // MARK: Render thread

    /// What to pack the next frame into: the negotiated mode, or (before the first negotiation
    /// and while the device is away) the first wanted format at the wanted size.
    func packing(forSourceWidth width: Int, height: Int) -> (format: PixelFormat, width: Int, height: Int) {
        state.withLock { state in
            state.sourceSize = (width, height)
            if let mode = state.statistics.mode { return (mode.pixelFormat, mode.width, mode.height) }
            let wanted = wantedSize(source: (width, height))
            return (settings.formats.first?.pixelFormat ?? .yuyv, wanted.width, wanted.height)
        }
    }

    /// The size to ask the driver for: the settings', else the source's frames'.
    private func wantedSize(source: (width: Int, height: Int)) -> (width: Int, height: Int) {
        if let width = settings.width, let height = settings.height { return (width, height) }
        return source
    }

    // MARK: Writer thread

    /// The device the node opened, once (the writer opens it again after a loss).
    func takeOpenedDevice() -> CameraDevice? {
        state.withLock { state in
            defer { state.openedDevice = nil }
            return state.openedDevice
        }
    }

    /// The size to ask the driver for: the settings', else the source's frames' (`fallback`
    /// before the render thread has seen one).
    func wantedSize(fallback: (width: Int, height: Int)) -> (width: Int, height: Int) {
        wantedSize(source: state.withLock { $0.sourceSize } ?? fallback)
    }

    func count(_ change: (inout VirtualCameraStatistics) -> Void) {
        state.withLock { change(&$0.statistics) }
    }

    func connected(_ mode: VirtualCameraMode, again: Bool) {
        state.withLock { state in
            state.statistics.mode = mode
            if again { state.statistics.reconnections += 1 }
        }
        messenger.publish(again ? VirtualCameraEvent.reconnected(mode) : .connected(mode))
    }

    func lost(_ error: ELImageError) {
        state.withLock { state in
            state.statistics.mode = nil
            state.statistics.losses += 1
            state.statistics.lastError = error
        }
        messenger.publish(VirtualCameraEvent.lost(error))
    }

    func failedToReopen(_ error: ELImageError) {
        state.withLock { $0.statistics.lastError = error }
    }

    /// Closes the device the node opened when no writer took it (the sink ended without frames).
    func closeUnusedDevice() {
        takeOpenedDevice()?.close()
    }
}
