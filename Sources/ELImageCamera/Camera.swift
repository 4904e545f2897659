import ELImage
import Synchronization

/// A V4L2 camera as a graph source: captures on its own thread and pushes RGBA frames to its
/// targets on the render thread.
///
/// ```swift
/// let context = try RenderContext()
/// let camera = Camera(device: "/dev/video0", settings: CaptureSettings(.hd720), context: context)
/// camera --> Grayscale() --> sink
/// try camera.start()
/// print(camera.modeChoice ?? "")                    // "MJPG 1280x720 @ 30 fps"
/// try camera.setWhiteBalance(.temperature(kelvin: 4500))
/// try camera.switchDevice(to: "/dev/video2")        // same node in the graph, another camera
/// camera.stop()                                     // targets get end-of-stream
/// ```
///
/// **Threads and drops.** The capture thread copies each frame out of its driver buffer, requeues
/// the buffer at once, and offers the copy to the camera's `SourceRunner` (newest wins): its
/// delivery thread uploads the newest frame on the render thread (`makeFrame(from:)`, any V4L2
/// format ELImage knows, MJPEG decoded on the capture thread) and delivers it. A frame replaced
/// before the graph took it is dropped and counted (`statistics`). The capture thread never waits
/// for the graph.
///
/// **Time.** Frame times come from the V4L2 buffer timestamps (`CLOCK_MONOTONIC`, microseconds):
/// relative to the first frame since `start()` by default, kept on that base through restarts
/// and device switches, and never going backwards (see `TimestampMode`).
///
/// **Failures.** Opening, configuring, and the capture thread's failures (device gone, I/O error,
/// stall) reach the context's error handler (`RenderContext.setErrorHandler`) as `ELImageError`s
/// naming the device, the step and the errno. A fatal failure stops the camera and sends
/// end-of-stream to the targets, after any frame still waiting. Failures of `start()`,
/// `restart(with:)` and `switchDevice(to:)` are also thrown to the caller.
public final class Camera: ImageOutput, CameraControlling, ClosableNode {
    public let outputs = OutputTargets()

    /// The context frames are uploaded to and delivered on.
    public let context: RenderContext
    private let io: any VideoDeviceIO

    private struct State {
        var path: String
        var settings: CaptureSettings
        var session: CaptureSession?
        var choice: CaptureModeChoice?
        /// The first frame's monotonic time, the zero of relative timestamps.
        var clockBase: Int64?
        /// The last frame time handed out, so that times never go backwards.
        var lastTime: Int64?
        /// The previous captured frame's monotonic time and sequence number in the current session
        /// (for the average interval and the driver's skips).
        var previousRaw: (session: ObjectIdentifier, microseconds: Int64, sequence: UInt32)?
        /// The session whose first damaged frame was reported (later ones are only counted).
        var reportedDamage: ObjectIdentifier?
    }

    private let state: Locked<State>
    /// Serializes start, stop, restart and switch; held while devices open and threads stop, never
    /// by the capture thread or the render thread's deliveries.
    private let lifecycle = Locked<Void>(())
    /// Hands the captured pictures to the render thread (newest wins) and counts them.
    private let runner = SourceRunner(name: "ELImage.camera", policy: .newestWins)
    private let captureThreads = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)

    /// A camera on `path`, not yet started.
    /// - Parameters:
    ///   - io: the device calls; `LibV4L2DeviceIO()` for real cameras, `EmulatedDeviceIO` for demos and tests.
    public init(device path: String = "/dev/video0", settings: CaptureSettings = CaptureSettings(),
                context: RenderContext, io: any VideoDeviceIO = LibV4L2DeviceIO()) {
        self.context = context
        self.io = io
        state = Locked(State(path: path, settings: settings))
        runner.attach(self, context: context)  // the runner sees the camera weakly
        context.register(self, stage: .source)
    }

    /// The safety net for a camera released while running: its capture thread stops and releases
    /// the device in the background (never waited for here); its targets get no end-of-stream.
    /// Call `close()` (or the context's `close()`) instead.
    deinit {
        state.withLock { $0.session }?.requestStop()
        runner.abandon()
    }

    /// Stops capturing (as `stop()`), delivers what is pending, end-of-stream included, and
    /// returns once the capture and delivery threads have ended. The camera cannot start again.
    /// Called by the render context's `close()`; idempotent.
    public func close() async {
        closed.store(true, ordering: .releasing)
        stop()
        await runner.close()
    }

    // MARK: What it is doing

    /// The device node in use (or to be used by `start()`).
    public var devicePath: String { state.withLock { $0.path } }

    /// The settings in use (or to be used by `start()`).
    public var settings: CaptureSettings { state.withLock { $0.settings } }

    /// True while a device is streaming.
    public var isRunning: Bool { state.withLock { $0.session != nil } }

    /// The mode chosen for the settings at the last start, restart or switch, and how it differs
    /// from what was asked.
    public var modeChoice: CaptureModeChoice? { state.withLock { $0.choice } }

    /// The mode the device streams in.
    public var mode: CaptureMode? { modeChoice?.mode }

    /// Frames captured, delivered and dropped since `start()`.
    public var statistics: SourceStatistics { runner.statistics }

    /// Capture threads of this camera that have not exited yet (0 once stopped or failed).
    var runningCaptureThreads: Int { captureThreads.load(ordering: .acquiring) }

    /// True when no frame, failure or end-of-stream waits for delivery.
    var isDeliveryIdle: Bool { runner.isIdle }

    // MARK: Lifecycle

    /// Opens the device, chooses the closest mode (`modeChoice`), and starts capturing. Starts a
    /// new stream: statistics and relative time start from zero. Does nothing while running.
    /// - Throws: `ELImageError` (no device, permission denied, busy, format unsupported, ...);
    ///   the failure also reaches the error handler and the targets get end-of-stream.
    public func start() throws {
        if closed.load(ordering: .acquiring) { throw ELImageError.closed(what: "the camera \(devicePath)") }
        try lifecycle.withLock { _ in
            guard !isRunning else { return }
            let (path, settings) = state.withLock { state in
                state.clockBase = nil
                state.lastTime = nil
                return (state.path, state.settings)
            }
            runner.count { $0 = SourceStatistics() }
            try begin(path: path, settings: settings)
        }
    }

    /// Stops capturing, releases the device, and sends end-of-stream to the targets after the
    /// last frame. Returns once the device is released; the end-of-stream follows on the render
    /// thread. Does nothing when not running.
    public func stop() {
        lifecycle.withLock { _ in
            guard let session = state.withLock({ state in
                defer { state.session = nil }
                return state.session
            }) else { return }
            session.stop()
            post(.endOfStream)
        }
    }

    /// Stops and starts again with `settings` on the same device; the stream goes on (no
    /// end-of-stream, times continue). When not running, only keeps the settings for `start()`.
    /// - Throws: as `start()`; a failure here is fatal (error handler, end-of-stream).
    public func restart(with settings: CaptureSettings) throws {
        try lifecycle.withLock { _ in
            let old = state.withLock { state in
                state.settings = settings
                defer { state.session = nil }
                return state.session
            }
            guard let old else { return }
            old.stop()
            try begin(path: old.device.path, settings: settings)
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
            let (running, currentPath, currentSettings) = state.withLock { ($0.session != nil, $0.path, $0.settings) }
            let newSettings = settings ?? currentSettings
            guard running, path != currentPath else {
                let old = state.withLock { state in
                    state.path = path
                    state.settings = newSettings
                    defer { state.session = nil }
                    return state.session
                }
                // The same device cannot be opened twice for streaming: restart it instead.
                guard let old else { return }
                old.stop()
                try begin(path: path, settings: newSettings)
                return
            }
            let next: CaptureSession
            do {
                next = try CaptureSession.prepare(path: path, settings: newSettings, io: io)
            } catch {
                post(.failure(Self.describe(error, path: path)))
                throw error
            }
            let old = state.withLock { state in
                state.path = path
                state.settings = newSettings
                defer { state.session = nil }
                return state.session
            }
            old?.stop()
            try run(next)
        }
    }

    /// Opens a session and runs it; called with `lifecycle` held. A failure is fatal.
    private func begin(path: String, settings: CaptureSettings) throws {
        let session: CaptureSession
        do {
            session = try CaptureSession.prepare(path: path, settings: settings, io: io)
        } catch {
            post(.failure(Self.describe(error, path: path)))
            post(.endOfStream)
            throw error
        }
        try run(session)
    }

    /// Starts streaming on a prepared session and installs it; called with `lifecycle` held. A
    /// failure is fatal.
    private func run(_ session: CaptureSession) throws {
        do {
            try session.streamOn()
        } catch {
            post(.failure(Self.describe(error, path: session.device.path)))
            post(.endOfStream)
            throw error
        }
        state.withLock { state in
            state.session = session
            state.choice = session.choice
            state.previousRaw = nil
        }
        captureThreads.add(1, ordering: .acquiringAndReleasing)
        do {
            try session.startCapture(events(for: session), group: context.threads)
        } catch {
            captureThreads.subtract(1, ordering: .acquiringAndReleasing)
            state.withLock { $0.session = nil }
            session.stop()
            post(.failure(Self.describe(error, path: session.device.path)))
            post(.endOfStream)
            throw error
        }
    }

    private static func describe(_ error: Error, path: String) -> ELImageError {
        error as? ELImageError ?? .invalidState(node: "Camera(\(path))", reason: "\(error)")
    }

    // MARK: From the capture thread

    private func events(for session: CaptureSession) -> CaptureEvents {
        let id = ObjectIdentifier(session)
        return CaptureEvents(
            frame: { [weak self] buffer, microseconds, sequence in
                self?.captured(buffer, microseconds: microseconds, sequence: sequence, session: id)
            },
            discarded: { [weak self] microseconds, sequence in
                guard let self else { return }
                let (interval, skipped) = state.withLock { Self.advance(&$0, microseconds, sequence, id) }
                runner.count { statistics in
                    statistics.produced += 1
                    statistics.dropped += 1
                }
                count(interval: interval, skipped: skipped)
            },
            corrupted: { [weak self] error in
                guard let self else { return }
                runner.count { $0.damaged += 1 }
                // Report the first undecodable frame of a session: a hint that the camera sends bad
                // data. Damaged frames are not fatal, and reporting each could flood the handler.
                guard let error, state.withLock({ state in
                    defer { state.reportedDamage = id }
                    return state.reportedDamage != id
                }) else { return }
                post(.failure(error))
            },
            failed: { [weak self, weak session] error in
                guard let self else { return }
                let current = self.state.withLock { state -> Bool in
                    guard let session, state.session === session else { return false }
                    state.session = nil
                    return true
                }
                self.post(.failure(error))
                if current { self.post(.endOfStream) }
            },
            exited: { [weak self] in
                self?.captureThreads.subtract(1, ordering: .acquiringAndReleasing)
            })
    }

    private func captured(_ buffer: PixelBuffer, microseconds: Int64, sequence: UInt32, session: ObjectIdentifier) {
        var buffer = buffer
        let (time, orientation, interval, skipped) = state.withLock { state in
            let (interval, skipped) = Self.advance(&state, microseconds, sequence, session)
            var time: Int64
            switch state.settings.timestamps {
            case .monotonicClock:
                time = microseconds
            case .relativeToFirstFrame:
                let base = state.clockBase ?? microseconds
                state.clockBase = base
                time = microseconds - base
            }
            if let last = state.lastTime, time <= last { time = last + 1 }
            state.lastTime = time
            return (time, state.settings.orientation, interval, skipped)
        }
        buffer.timestamp = MediaTime(microseconds: time)
        runner.offer(buffer, orientation: orientation)
        count(interval: interval, skipped: skipped)
    }

    /// Moves the session's previous-frame record to this frame; returns the interval since the
    /// previous captured frame and the frames the driver skipped in between.
    private static func advance(_ state: inout State, _ microseconds: Int64, _ sequence: UInt32,
                                _ session: ObjectIdentifier) -> (interval: Int64?, skipped: Int) {
        var interval: Int64?
        var skipped = 0
        if let previous = state.previousRaw, previous.session == session {
            interval = microseconds - previous.microseconds
            if sequence > previous.sequence &+ 1 { skipped = Int(sequence - previous.sequence - 1) }
        }
        state.previousRaw = (session, microseconds, sequence)
        return (interval, skipped)
    }

    /// Counts the driver's skips and the interval before a captured frame.
    private func count(interval: Int64?, skipped: Int) {
        runner.count { counters in
            counters.skippedByDriver += skipped
            if let interval, interval > 0 {
                counters.intervalSum += interval
                counters.intervalCount += 1
            }
        }
    }

    // MARK: To the render thread

    private enum Event {
        case failure(ELImageError)
        case endOfStream
    }

    /// Sends a failure to the error handler or end-of-stream to the targets, after the frames
    /// captured so far.
    private func post(_ event: Event) {
        switch event {
        case .failure(let error): runner.report(error)
        case .endOfStream: runner.endStream()
        }
    }

    // MARK: Controls

    /// Runs `body` with the streaming device, or with the device opened for the call when stopped.
    private func withControlDevice<T>(_ body: (CameraDevice) throws -> T) throws -> T {
        if let device = state.withLock({ $0.session?.device }), device.isOpen {
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
