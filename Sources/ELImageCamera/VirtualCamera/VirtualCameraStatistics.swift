import ELImage

/// What a `VirtualCamera` did: the frames it wrote to the device and dropped (and why), and its
/// connection to the device.
public struct VirtualCameraStatistics: Sendable, Equatable {
    /// Frames queued to the device.
    public var framesWritten = 0
    /// Frames dropped because the writer thread was behind (its queue was full).
    public var droppedQueueFull = 0
    /// Frames dropped because the driver gave no buffer back in time.
    public var droppedNoBuffer = 0
    /// Frames dropped while the device was away (from losing it until it was open again).
    public var droppedDisconnected = 0
    /// Frames dropped because they were packed for the format the device had before it was
    /// reconfigured (the few in flight when the new format was negotiated).
    public var droppedReconfiguring = 0
    /// Times the device was lost (gone, reconfigured, failing).
    public var losses = 0
    /// Times the device was opened again after a loss.
    public var reconnections = 0
    /// The format written now; nil before the first frame and while the device is away.
    public var mode: VirtualCameraMode?
    /// The last failure of the device: why it was lost, or why reopening it failed.
    public var lastError: ELImageError?

    /// Every frame that reached the sink and was not written.
    public var framesDropped: Int { droppedQueueFull + droppedNoBuffer + droppedDisconnected + droppedReconfiguring }
}

/// A change in a `VirtualCamera`'s connection to its device, told as it happens (on the writer
/// thread) as a message on its render context's event stream (`RenderEvent.message`; read it with
/// `event.message(VirtualCameraEvent.self)`).
public enum VirtualCameraEvent: NodeMessage {
    /// The first frame negotiated this mode with the driver.
    case connected(VirtualCameraMode)
    /// The device failed or went away; frames are dropped until it is back.
    case lost(ELImageError)
    /// The device is back, writing this mode (perhaps another than before).
    case reconnected(VirtualCameraMode)

    public var description: String {
        switch self {
        case .connected(let mode): "writing \(mode)"
        case .lost(let error): "lost the device (\(error)); reopening it"
        case .reconnected(let mode): "device back, writing \(mode)"
        }
    }
}
