import ELImage
import ELImageCamera
import ELImageMedia
import ELImageTesting
import Foundation

/// One soak recording, set up as `elimage run /dev/video0 --audio SOURCE -o FILE.mp4` sets up a
/// camera with live sound: the emulated camera (real-time pacing, every frame marked with its
/// sequence number) into an MP4 encoder, and a `PulseAudioCapture` of the drifting pipe source
/// on a clock anchored at the camera's first frame (`MediaClockAnchor`).
struct SoakRecording {
    struct Options {
        var duration: Duration
        var ppm: Double
        var width = 320
        var height = 240
        var framesPerSecond = 25
        var output: String
        /// Said every `progressEvery` (and at the end).
        var progressEvery: Duration = .seconds(60)
    }

    /// What the analysis needs besides the file.
    struct Result {
        var summary: RecordingSummary
        /// The monotonic time (µs) of camera frame 0, and the frame interval (µs).
        var cameraStart: Int64
        var cameraInterval: Int64
        /// The sound writer's true rate and epoch.
        var writer: DriftingSoundWriter
        var capture: AudioCaptureStatistics?
        var framesLostByDriver: Int
    }

    let options: Options

    func run(say: @escaping @Sendable (String) -> Void) async throws -> Result {
        // The pipe source makes its FIFO at start and removes it at exit.
        let fifo = FileManager.default.temporaryDirectory.path + "/elimage-soak-\(UUID().uuidString).fifo"
        let server = try PrivateSoundServer.start(modules: [
            "module-pipe-source source_name=drift file=\(fifo) format=s16le rate=\(DriftingSoundWriter.nominalRate) channels=1",
        ])
        defer { server.stop() }
        let writer = try DriftingSoundWriter(fifo: fifo, ppm: options.ppm)
        try writer.start()

        let device = EmulatedVideoDevice(path: "/dev/video0", formats: [
            .init(fourCC: .yuyv, sizes: [.init(width: options.width, height: options.height,
                                               framesPerSecond: [Double(options.framesPerSecond)])]),
        ], pacing: .realTime)
        device.marksFrames = true
        let camera = Camera(device: "/dev/video0",
                            settings: CaptureSettings(width: options.width, height: options.height,
                                                      framesPerSecond: Double(options.framesPerSecond)),
                            io: EmulatedDeviceIO([device]))
        let context = try RenderContext()
        do {
            let result = try await record(camera: camera, device: device, writer: writer, server: server,
                                          context: context, say: say)
            await writer.stop()
            await context.close()
            return result
        } catch {
            await writer.stop()
            await context.close()
            throw error
        }
    }

    private func record(camera: Camera, device: EmulatedVideoDevice, writer: DriftingSoundWriter,
                        server: PrivateSoundServer, context: RenderContext,
                        say: @escaping @Sendable (String) -> Void) async throws -> Result {
        let microphone = try PulseAudioCapture(options: .init(device: "drift", server: server.address, clock: MediaClock()))
        context.register(microphone, stage: .sink)
        var settings = EncoderSettings()
        settings.rateControl = .constantQuality(20)
        settings.frameRate = .init(options.framesPerSecond, 1)
        let encoder = try VideoEncoder(settings: settings)
        camera --> MediaClockAnchor(clock: microphone.options.clock, timing: camera)
        camera --> encoder
        try encoder.start(recordingTo: options.output, audio: .track(microphone))
        try camera.start(on: context)

        guard await device.waitForCounters(timeout: .seconds(10), until: { $0.framesProduced > 0 }),
              let cameraStart = device.captureMicroseconds(ofFrame: 0),
              let second = device.captureMicroseconds(ofFrame: 1) else {
            throw SoakFailure("the emulated camera made no frame within 10 s")
        }
        let started = ContinuousClock.now
        while ContinuousClock.now - started < options.duration {
            let left = options.duration - (ContinuousClock.now - started)
            try await Task.sleep(for: min(options.progressEvery, left))
            let statistics = encoder.statistics
            let elapsed = (ContinuousClock.now - started).timeInterval
            say(String(format: "%6.0f s: %d frames encoded, %d dropped; sound: %@", elapsed, statistics.encoded,
                       statistics.dropped, microphone.captureStatistics?.description ?? "none"))
            if let failure = microphone.failure { throw SoakFailure("the sound capture failed: \(failure)") }
        }
        guard device.captureMicroseconds(ofFrame: 0) == cameraStart else {
            throw SoakFailure("the emulated camera's schedule moved during the run (a stall): the frames' capture times are unknown")
        }
        let lost = device.counters.framesLostByDriver
        let capture = microphone.captureStatistics  // as the recording ends (capture goes on while it finishes)
        await camera.finish()
        let summary = try await encoder.finish()
        await microphone.close()
        return Result(summary: summary, cameraStart: cameraStart, cameraInterval: second - cameraStart,
                      writer: writer, capture: capture, framesLostByDriver: lost)
    }
}
