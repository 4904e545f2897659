import ELImage

/// A sink that shows the graph as a webcam: it writes each frame to a V4L2 output device (a
/// v4l2loopback node), which video calls, browsers and OBS then open as a camera.
///
/// ```swift
/// let camera = Camera(device: "/dev/video0")
/// let virtual = try VirtualCamera(device: "/dev/video10")   // sudo modprobe v4l2loopback exclusive_caps=1
/// camera --> Beauty() --> virtual
/// try camera.start(on: context)
/// // ... later
/// await camera.finish()
/// try await virtual.finish()
/// ```
///
/// **Format.** At the first frame the driver is offered `settings.formats` in turn (YUYV first,
/// then I420, NV12, UYVY) at the source's size, and its answer is used as it is: the format and
/// size it returns (a device fixed to another size gets frames scaled to it, `settings.scaling`),
/// its row stride, and the frame rate it keeps. Frames are scaled (one blit) and packed on the
/// GPU, read back on the sink's writer thread and copied into the driver's buffers.
///
/// **Live.** The device never slows the graph: a full queue drops the new frame, a driver that
/// gives no buffer back in two frame intervals loses that frame, each counted in `statistics`.
/// Consumers come and go without the writer noticing. When the device fails or goes away
/// (unloaded, reconfigured by `v4l2loopback-ctl`), frames are dropped and counted while it is
/// reopened (at the next frame, then backing off to every 2 s), and writing goes on in whatever
/// format it has then; each loss and return is a `VirtualCameraEvent` on the context's events. The run fails only when the first
/// negotiation fails, or when the device stays away longer than `settings.reconnectWindow`.
///
/// **Ending.** `finish()` writes what is queued, stops the stream and closes the device (with
/// exclusive caps, the loopback device stops showing as a camera); `close()` drops what is queued
/// first. The render context's `close()` finishes it.
public final class VirtualCamera: ImageInput, FinishableNode, Sendable, PlanDescribing {
    public let inputSlots = InputSlots(count: 1)
    /// The output device, e.g. "/dev/video10".
    public let path: String
    public let settings: VirtualCameraSettings
    /// What a consumer should know about the device (one that advertises capture and output at
    /// once is hidden by Chrome); empty when all is well.
    public let warnings: [String]
    private let link: VirtualCameraLink
    /// Where the link tells its `VirtualCameraEvent`s: the context of the camera's frames.
    private let messenger = NodeMessenger()
    private let sink: ReadbackSink

    /// Opens `device` and checks that it is a video output device.
    /// - Parameters:
    ///   - device: the output device node, e.g. "/dev/video10".
    ///   - settings: the formats and size to offer, scaling, frame rate, colour, reconnecting.
    ///   - io: the device calls (`EmulatedDeviceIO` in tests and demos).
    /// - Throws: `ELImageError.invalidInput` for bad settings or a device that is not an output
    ///   (a camera, a loopback device another program writes to); `.io` when it cannot be opened.
    public init(device: String, settings: VirtualCameraSettings = VirtualCameraSettings(), io: any VideoDeviceIO = LibV4L2DeviceIO()) throws {
        try settings.validate(path: device)
        let (opened, warnings) = try V4L2OutputStream.openDevice(path: device, io: io)
        path = device
        self.settings = settings
        self.warnings = warnings
        let link = VirtualCameraLink(path: device, io: io, settings: settings, device: opened, messenger: messenger)
        self.link = link
        let configuration = ReadbackSink.Configuration(
            path: device, threadName: "virtual-camera", format: settings.formats.first?.pixelFormat ?? .yuyv,
            colorSpace: settings.colorSpace, chromaLocation: .left, chromaDownsampling: settings.chromaDownsampling, capacity: settings.queueCapacity, whenQueueFull: .drop)
        sink = ReadbackSink(configuration, open: { _ in VirtualCameraWriter(link: link) }, unused: { link.closeUnusedDevice() })
    }

    /// The safety net for a sink released without `finish()` or `close()`: its writer ends in the
    /// background and closes the device.
    deinit {
        sink.requestFinish()
    }

    /// Frames written, dropped and why, the mode written, losses and reconnections.
    public var statistics: VirtualCameraStatistics {
        var statistics = link.statistics
        statistics.droppedQueueFull = sink.dropped
        return statistics
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        let target = link.packing(forSourceWidth: frame.width, height: frame.height)
        messenger.meet(context, as: self)
        let picture = try context.scaledFrame(frame, width: target.width, height: target.height, scaling: settings.scaling)
        if try sink.take(picture, time: 0, format: target.format, owner: self, in: context) {
            context.register(self, stage: .sink)
        }
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        sink.requestFinish()
    }

    package var planSummary: String {
        "scales to the device's size (\(settings.scaling)), " + sink.planSummary
    }

    /// Writes the frames still queued, stops the stream and closes the device; returns the frames
    /// written in all.
    /// - Throws: the failure that ended the writing (the first negotiation, or a device away
    ///   longer than the reconnect window).
    @discardableResult
    public func finish() async throws -> Int {
        sink.requestFinish()
        _ = try await sink.outcome().get()
        return link.statistics.framesWritten
    }

    /// Stops at once (what is queued is dropped and counted), stops the stream and closes the
    /// device; returns once the writer thread has ended. Idempotent.
    public func close() async {
        sink.requestStop()
        _ = await sink.outcome()
    }
}

extension VirtualCamera: FrameAccounting {
    /// One hop: every frame that reached the sink, those written to the device, and why the
    /// others were not.
    public var frameHops: [FrameHop] {
        let statistics = statistics
        return [FrameHop(name: path, framesIn: statistics.framesWritten + statistics.framesDropped, passedOn: statistics.framesWritten,
                         drops: [
                             .init(statistics.droppedQueueFull, "the queue was full"),
                             .init(statistics.droppedNoBuffer, "the driver gave no buffer back in time"),
                             .init(statistics.droppedDisconnected, "the device was away"),
                             .init(statistics.droppedReconfiguring, "packed for the format before the device changed it"),
                         ])]
    }
}
