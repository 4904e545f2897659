import ELImage
import Synchronization

/// A V4L2 camera as a graph source: a `FrameProducer` run by a `SourceRunner`, pushing RGBA frames to its
/// targets on the render thread.
///
/// ```swift
/// let context = try RenderContext()
/// let camera = Camera(device: "/dev/video0", settings: CaptureSettings(.hd720))
/// camera --> Grayscale() --> sink
/// try camera.start(on: context)
/// print(camera.modeChoice ?? "")                    // "MJPG 1280x720 @ 30 fps"
/// try camera.setWhiteBalance(.temperature(kelvin: 4500))
/// try camera.switchDevice(to: "/dev/video2")        // same node in the graph, another camera
/// await camera.finish()                             // targets get end-of-stream; start(on:) again later
/// ```
///
/// **Context.** Like every source, a camera is bound to a render context when it starts
/// (`start(on:)`, as a file's `run(on:)`), and stays bound to that one: its frames are uploaded
/// and delivered there, its failures and end are that context's events, and that context's
/// `close()` closes it. The nodes after it take the context from the frames they get.
///
/// **Ending.** `finish()` stops capturing, delivers the frame already captured, then
/// end-of-stream, and returns once the stream has ended; `cancel()` asks for that end without
/// waiting (from a frame callback or a signal handler); `close()` stops for good, dropping the
/// frame that waits. However it ends (also by a failure or an unplugged device), the end is a
/// `.sourceEnded` event on the context's stream: wait for it rather than polling `isRunning`.
///
/// **Threads and drops.** The camera is a `FrameProducer` (`CameraProducer`) run by its
/// `SourceRunner` from `start(on:)` to its end: one stream. Its producer thread waits on the device,
/// copies each frame out of its driver buffer and requeues the buffer at once (MJPEG decoded
/// there); the runner's delivery thread uploads the newest frame on the render thread
/// (`makeFrame(from:)`, any V4L2 format ELImage knows) and delivers it. A frame replaced before
/// the graph took it is dropped and counted (`statistics`, `.dropped` events). Capture never waits for the graph.
/// `restart(with:)` and `switchDevice(to:)` swap the device session under the running stream.
///
/// **Time.** Frame times come from the V4L2 buffer timestamps (`CLOCK_MONOTONIC`, microseconds):
/// relative to the first frame since `start(on:)` by default, kept on that base through restarts
/// and device switches, and never going backwards (see `TimestampMode`).
///
/// **Failures.** Opening, configuring, and capture failures (device gone, I/O error, stall) are
/// `.failed` events on the context's stream (`RenderContext.events`), `ELImageError`s naming the
/// device, the step and the errno. A fatal failure stops the camera and sends end-of-stream to
/// the targets, after any frame still waiting. Failures of `start(on:)`, `restart(with:)` and
/// `switchDevice(to:)` are also thrown to the caller.
public final class Camera: ImageOutput, CameraControlling, FinishableNode, CaptureTiming {
    public let outputs = OutputTargets()

    private let io: any VideoDeviceIO

    private struct State {
        var path: String
        var settings: CaptureSettings
        /// The context of the first start, for good.
        var context: RenderContext?
        /// The session of the current (or last) stream.
        var slot: CaptureSlot?
        var choice: CaptureModeChoice?
    }

    private let state: Locked<State>
    /// Serializes start, stop, restart and switch; held while devices open and sessions stop,
    /// never by the producer thread or the render thread's deliveries.
    private let lifecycle = Locked<Void>(())
    /// Runs the stream: the producer thread, newest-wins hand-over, delivery, statistics.
    private let runner = SourceRunner(name: "ELImage.camera", policy: .newestWins)
    private let closed = Atomic<Bool>(false)
    /// The monotonic time (microseconds) that timestamp zero stands for, from the stream's first frame.
    private let timeOrigin = Locked<Int64?>(nil)

    /// A camera on `path`, not yet started (nothing is opened until `start(on:)`).
    /// - Parameters:
    ///   - path: the V4L2 device node, such as `/dev/video0`.
    ///   - settings: the wanted size, frame rate and pixel format.
    ///   - io: the device calls; `LibV4L2DeviceIO()` for real cameras, `EmulatedDeviceIO` for demos and tests.
    public init(device path: String = "/dev/video0", settings: CaptureSettings = CaptureSettings(),
                io: any VideoDeviceIO = LibV4L2DeviceIO()) {
        self.io = io
        state = Locked(State(path: path, settings: settings))
    }

    /// The safety net for a camera released while running: its producer ends the stream and
    /// releases the device in the background (never waited for here); its targets are gone.
    /// Call `close()` (or the context's `close()`) instead.
    deinit {
        state.withLock { $0.slot }?.abandon()
    }

    /// Stops capturing for good: the device is released, the frame waiting for delivery is
    /// dropped, the targets get end-of-stream; returns once the producer and delivery threads are
    /// joined. The camera cannot start again. Called by the render context's `close()`; idempotent.
    public func close() async {
        closed.store(true, ordering: .releasing)
        endStream()
        await runner.close()
    }

    /// Stops capturing (the device is released), delivers the frame already captured, then
    /// end-of-stream, and returns once the stream has ended and its threads are joined; at once
    /// when not started. `start(on:)` begins a new stream afterwards. A failure of the stream was a
    /// `.failed` event: nothing is thrown.
    public func finish() async {
        endStream()
        try? await runner.finish()  // a camera's run reports its failures as events; nothing is thrown
    }

    /// Asks the stream to end without waiting, from any thread (a frame callback on the render
    /// thread, a signal handler): the producer releases the device at its next look, the frame
    /// already captured is delivered, then end-of-stream and a `.sourceEnded` event. The
    /// framework's own stop; a user calls `finish()` or `close()` (from a callback:
    /// `Task { await camera.finish() }`).
    package func cancel() {
        state.withLock { $0.slot }?.abandon()
    }

    // MARK: What it is doing

    /// When the frame stamped `timestamp` was captured, on `CLOCK_MONOTONIC` in microseconds (its
    /// V4L2 buffer time), whatever the `TimestampMode`; nil before the stream's first frame. Give
    /// the camera to `MediaClockAnchor(clock:timing:)` (ELImageMedia) so live sound lines up with
    /// the moment of capture, not of delivery.
    public func captureMicroseconds(of timestamp: MediaTime) -> Int64? {
        timeOrigin.withLock { $0 }.map { $0 + Int64((timestamp.seconds * 1_000_000).rounded()) }
    }

    /// The device node in use (or to be used by `start(on:)`).
    public var devicePath: String { state.withLock { $0.path } }

    /// The settings in use (or to be used by `start(on:)`).
    public var settings: CaptureSettings { state.withLock { $0.settings } }

    /// The render context the camera is bound to: the one given to its first `start(on:)`; nil
    /// before it.
    public var context: RenderContext? { state.withLock { $0.context } }

    /// True while a device is streaming.
    public var isRunning: Bool { session != nil }

    /// The mode chosen for the settings at the last start, restart or switch, and how it differs
    /// from what was asked.
    public var modeChoice: CaptureModeChoice? { state.withLock { $0.choice } }

    /// The mode the device streams in.
    public var mode: CaptureMode? { modeChoice?.mode }

    /// Frames captured, delivered and dropped since `start(on:)`.
    public var statistics: SourceStatistics { runner.statistics }

    /// True while the producer thread captures (false once stopped or failed).
    var isCapturing: Bool { runner.isProducing }

    /// True when no frame, failure or end-of-stream waits for delivery.
    var isDeliveryIdle: Bool { runner.isIdle }

    /// The streaming session.
    private var session: CaptureSession? { state.withLock { $0.slot }?.current }

    // MARK: Lifecycle

    /// Opens the device, chooses the closest mode (`modeChoice`), and starts capturing into
    /// `context`. The first start binds the camera to `context` for good (its frames, events and
    /// `close()`); later starts take the same context. Starts a new stream: statistics and relative
    /// time start from zero. Does nothing while running.
    /// - Throws: `ELImageError.closed` when the camera or the context is closed;
    ///   `ELImageError.invalidState` when the camera is bound to another context; `ELImageError`
    ///   for the device (no device, permission denied, busy, format unsupported, ...): that
    ///   failure is also a `.failed` event and the targets get end-of-stream.
    public func start(on context: RenderContext) throws {
        if closed.load(ordering: .acquiring) { throw ELImageError.closed(what: "the camera \(devicePath)") }
        if context.isClosed { throw ELImageError.closed(what: "the render context the camera \(devicePath) was started on") }
        try lifecycle.withLock { _ in
            if let bound = self.context, bound !== context {
                throw ELImageError.invalidState(node: "Camera(\(devicePath))",
                                                reason: "it was started on another render context, which it stays bound to; start it on that one, or make a Camera for this one")
            }
            guard !isRunning else { return }
            let (path, settings) = state.withLock { ($0.path, $0.settings) }
            // The last stream's producer was told to end (stop, failure): it returns at once.
            runner.joinProducer()
            // A device that cannot open still makes a stream, which reports why and ends.
            let slot: CaptureSlot
            var failure: (any Error)?
            do {
                slot = CaptureSlot(try open(path, settings))
            } catch {
                failure = error
                slot = CaptureSlot(nil, failure: Self.describe(error, path: path))
            }
            state.withLock { state in
                state.slot = slot
                state.context = context
                state.choice = slot.current?.choice ?? state.choice
            }
            do {
                // The runner registers the camera with the context, whose close() closes it.
                try runner.start(CameraProducer(slot: slot, clock: context.clock, timeOrigin: timeOrigin), for: self, on: context)
            } catch {
                slot.reserve { session, ending in
                    session?.release()
                    session = nil
                    ending = .stopped
                }
                context.report(error, from: self)
                throw error
            }
            if let failure { throw failure }
        }
    }

    /// Ends the stream: releases the device (waiting for the producer's current slice); the
    /// producer then ends the stream with end-of-stream.
    private func endStream() {
        lifecycle.withLock { _ in
            state.withLock { $0.slot }?.reserve { session, ending in
                session?.release()
                session = nil
                if ending == nil { ending = .stopped }
            }
        }
    }

    /// Stops and starts again with `settings` on the same device; the stream goes on (no
    /// end-of-stream, times continue). When not running, only keeps the settings for `start(on:)`.
    /// - Throws: as `start(on:)`; a failure here is fatal (`.failed` event, end-of-stream).
    public func restart(with settings: CaptureSettings) throws {
        try lifecycle.withLock { _ in
            let (slot, path) = state.withLock { state in
                state.settings = settings
                return (state.slot, state.path)
            }
            guard let slot, slot.current != nil else { return }
            try replace(in: slot, path: path) { try open(path, settings) }
        }
    }

    /// Moves the camera to another device while the graph keeps running: the node and its
    /// targets stay, the frames come from `path`. `settings` default to the current ones.
    ///
    /// The new device is opened and configured while the old one still streams; if that fails,
    /// the old one keeps streaming and the error is thrown (and reported, not fatal). Then the old
    /// device is stopped and the new one started. When not running, only records the device.
    public func switchDevice(to path: String, settings: CaptureSettings? = nil) throws {
        try lifecycle.withLock { _ in
            let (slot, currentPath, newSettings) = state.withLock { ($0.slot, $0.path, settings ?? $0.settings) }
            let record = { self.state.withLock { ($0.path, $0.settings) = (path, newSettings) } }
            guard let slot, slot.current != nil, path != currentPath else {
                record()
                // The same device cannot be opened twice for streaming: restart it instead.
                guard let slot, slot.current != nil else { return }
                try replace(in: slot, path: path) { try open(path, newSettings) }
                return
            }
            let next: CaptureSession
            do {
                next = try CaptureSession.prepare(path: path, settings: newSettings, io: io)
            } catch {
                context?.report(Self.describe(error, path: path), from: self)
                throw error
            }
            record()
            do {
                try replace(in: slot, path: path) {
                    try next.streamOn()
                    return next
                }
            } catch {
                next.release()
                throw error
            }
        }
    }

    /// Opens, configures and starts streaming `path`.
    private func open(_ path: String, _ settings: CaptureSettings) throws -> CaptureSession {
        let session = try CaptureSession.prepare(path: path, settings: settings, io: io)
        try session.streamOn()
        return session
    }

    /// Releases the slot's session and puts the one `open` makes in its place, while the stream
    /// goes on; called with `lifecycle` held. A failure of `open` ends the stream (reported by
    /// the producer, then end-of-stream) and is thrown.
    private func replace(in slot: CaptureSlot, path: String, _ open: () throws -> CaptureSession) throws {
        try slot.reserve { session, ending in
            guard let old = session, ending == nil else {
                throw ELImageError.invalidState(node: "Camera(\(path))", reason: "the camera stopped while changing its device or settings (the context's events say why); start(on:) it again")
            }
            old.release()
            session = nil
            do {
                let next = try open()
                session = next
                state.withLock { $0.choice = next.choice }
            } catch {
                ending = .failed(Self.describe(error, path: path))
                throw error
            }
        }
    }

    private static func describe(_ error: Error, path: String) -> ELImageError {
        error as? ELImageError ?? .invalidState(node: "Camera(\(path))", reason: "\(error)")
    }

    // MARK: Controls

    /// Runs `body` with the streaming device, or with the device opened for the call when stopped.
    private func withControlDevice<T>(_ body: (CameraDevice) throws -> T) throws -> T {
        if let device = session?.device, device.isOpen {
            do {
                return try body(device)
            } catch {
                if device.isOpen { throw error }  // else the session ended meanwhile: open it directly
            }
        }
        let device = try CameraDevice(path: devicePath, io: io)
        defer { device.close() }
        return try body(device)
    }

    public func controls() throws -> [CameraControl] {
        try withControlDevice { try $0.controls() }
    }

    public func control(_ id: CameraControlID) throws -> CameraControl {
        try withControlDevice { try $0.control(id) }
    }

    public func value(of id: CameraControlID) throws -> Int64 {
        try withControlDevice { try $0.value(of: id) }
    }

    public func setValue(_ value: Int64, for id: CameraControlID) throws {
        try withControlDevice { try $0.setValue(value, for: id) }
    }
}
