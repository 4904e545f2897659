import ELImage
import ELImageCamera
import ELImageDetection
import ELImageKit
import ELImageMedia
import ELImagePreview
import ELImageTesting
import Foundation
import Testing

// The code of the DocC pages (Sources/<module>/<module>.docc/*.md) as written there, but for its
// imports, between "docc: <module>/<page> <n>" and "docc: end" (n: the page's nth Swift block):
// compiled with the tests against the real API, and checked to be the pages' text by
// DocCExampleTests. A page's free names (a `source`, an `encoder`) are parameters here. The
// snippets a test runs as written have their sections in that test (APITourTests). Change a page
// and its section together.

// docc: ELImageTesting/ELImageTesting 1
@Test func grayscaleMakesRedGray() async throws {
    let pipeline = try EmbeddedPipeline { input in input --> Grayscale() }
    let red = RGBAImage(width: 1, height: 1, pixels: [255, 0, 0, 255])
    let out = try await pipeline.send(red)
    let leftovers = await pipeline.finish()
    #expect(leftovers.isEmpty, "\(leftovers)")
    #expect(out.first?[0, 0] == [54, 54, 54, 255])
}
// docc: end

/// The landing pages' other examples; only compiled (they open cameras, windows and files).
enum DocCExamples {
    // docc: ELImage/ELImage 1
    static func core() async throws {
        try await withRenderContext { context in        // EGL + GLES 3 on its own render thread
            let input = RawDataInput()
            let stream = try FrameStream(format: .rgba)  // frames back on the CPU, as an async sequence
            input --> Grayscale() --> stream
            async let frames = stream.frames.reduce(into: [PixelBuffer]()) { $0.append($1) }
            let red: [UInt8] = [255, 0, 0, 255, 255, 0, 0, 255]   // 2×1 RGBA
            try await input.process(red, width: 2, height: 1, format: .rgba, timestamp: .zero, on: context)
            try await stream.finish()                    // the sequence ends after the last frame
            print(try await frames[0].data)              // [54, 54, 54, 255, 54, 54, 54, 255]
        }                                                // closed: every thread joined, EGL torn down
    }
    // docc: end

    // docc: ELImageCamera/ELImageCamera 1
    static func camera() async throws {
        for device in CameraDevice.list().devices { print(device.path, device.card) }

        try await withRenderContext { context in
            let camera = Camera(device: "/dev/video0", settings: CaptureSettings(.hd720, framesPerSecond: 30))
            let stream = try FrameStream(format: .rgba, whenQueueFull: .drop)
            camera --> Beauty() --> stream
            try camera.start(on: context)                 // V4L2 streaming on its own producer thread
            try camera.setExposure(.automatic)            // unsupported or out of range: it throws
            var frames = 0
            for try await _ in stream.frames {            // ends at the camera's end of stream
                frames += 1
                if frames == 30 { Task { await camera.finish() } }   // the loop ends with the stream
            }
            print(camera.mode as Any, camera.statistics)  // the mode chosen; frames captured, delivered, dropped
        }
    }
    // docc: end

    // docc: ELImageDetection/ELImageDetection 1
    static func detection(source: MovieInput, encoder: VideoEncoder) throws {
        let overlay = MetadataOverlay()          // draws the latest boxes and outlines into the video
        let faces = try DetectorOutput(detector: try FaceDetector(), settings: .init(interval: 2)) { metadata in
            overlay.show(metadata)               // on the detector's thread
            for face in metadata.faces { print(face.pixelBounds, face.confidence) }
        }
        source --> faces                         // the side branch
        source --> overlay --> encoder           // the main path
    }
    // docc: end

    // docc: ELImageKit/ELImageKit 1
    static func kit() async throws {
        try await withRenderContext { context in
            let source = try MediaSource.open("clip.mp4")
            let encoder = try VideoEncoder()
            source.node --> Beauty() --> encoder
            try encoder.start(recordingTo: "out.mp4")
            try await source.run(on: context)             // close() from any task stops it early
            print(try await encoder.finish())
        }
    }
    // docc: end

    // docc: ELImageMedia/ELImageMedia 1
    static func media() async throws {
        try await withRenderContext { context in
            let movie = try MovieInput(path: "clip.mp4")
            let beauty = Beauty(strength: 0.7)
            let encoder = try VideoEncoder(settings: EncoderSettings())     // x264, veryfast, CRF 23
            let snapshot = Snapshot()
            movie --> beauty --> encoder
            beauty --> snapshot                           // fan-out

            try encoder.start(recordingTo: "out.mp4")     // written as out.mp4.partial until it ends
            async let still = snapshot.capture(to: "still.png")              // the next frame, as PNG
            try await movie.run(on: context)              // decodes, filters and encodes every frame
            let summary = try await encoder.finish()      // finalises the file
            print(summary, try await still.path)
        }
    }
    // docc: end

    // docc: ELImagePreview/ELImagePreview 1
    static func preview(source: MovieInput) throws {
        let display = try PreviewDisplay.connect()        // WAYLAND_DISPLAY, else DISPLAY
        let context = try RenderContext(windowSystem: display)
        let window = try PreviewWindow(context: context, display: display, options: .init(title: "preview"))
        window.onCloseRequest = { Task { await source.close() } }   // q, Escape, the close button
        source --> Beauty() --> window
    }
    // docc: end

    // docc: ELImageTesting/ELImageTesting 2
    static func manualClock() async throws {
        let clock = ManualClock()
        let pipeline = try EmbeddedPipeline(clock: clock)
        let movie = try MovieInput(path: "clip.mp4", options: .init(pacing: .realTime))   // ELImageMedia
        movie --> pipeline.output
        let run = Task { try await movie.run(on: pipeline.context) }
        await clock.waitForSleepers()            // the next frame waits for its time
        clock.advance(by: .milliseconds(40))     // now it is due
        await movie.close()
        try await run.value
    }
    // docc: end

    // docc: ELImageTesting/ELImageTesting 3
    static func emulatedCamera(pipeline: EmbeddedPipeline) throws {
        let io = EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0")])
        let camera = Camera(device: "/dev/video0", settings: CaptureSettings(width: 320, height: 240), io: io)
        camera --> pipeline.output
        try camera.start(on: pipeline.context)   // real frames from the emulated driver
    }
    // docc: end
}

/// The articles' examples that no test runs as written; only compiled.
enum DocCArticleExamples {
    // docc: ELImage/APITour 1
    static func tourComposeAndRun() async throws {
        try await withRenderContext { context in     // EGL + GLES 3 on its own render thread
            context.setErrorHandler { failure in print("pipeline error:", failure) }

            let movie = try MovieInput(path: "clip.mp4")
            let beauty = Beauty(strength: 0.7)
            let encoder = try VideoEncoder(settings: EncoderSettings())     // x264, veryfast, CRF 23
            let snapshot = Snapshot()
            movie --> beauty --> encoder
            beauty --> snapshot                           // fan-out

            try encoder.start(recordingTo: "out.mp4")     // fragmented MP4 (out.mp4.partial until it ends)
            async let still = snapshot.capture(to: "still.png")              // the next frame, as PNG
            try await movie.run(on: context)              // decodes, filters and encodes every frame
            let summary = try await encoder.finish()        // finalises the file
            print(summary, try await still.path)   // out.mp4: 132 frames, 5.280 s, 1280x720, 1.1 MB, 0 dropped (end of stream) still.png
        }                                                 // closed: every thread joined, EGL torn down
    }
    // docc: end

    // docc: ELImage/APITour 2
    static func tourSound(encoder: VideoEncoder, microphone: PulseAudioCapture) throws {
        try encoder.start(recordingTo: "silent.mp4", audio: .off)           // no sound track
        try encoder.start(recordingTo: "voice.mp4", audio: .track(microphone))
    }
    // docc: end

    // docc: ELImage/APITour 3
    static func tourCtrlC(movie: MovieInput, encoder: VideoEncoder, context: RenderContext) async throws {
        let (frames, signal) = try await GracefulStop.run(onSignal: { _ in await movie.close() }) {
            try await movie.run(on: context)              // returns early once onSignal has closed it
            return try await encoder.finish().statistics.encoded
        }
        print("wrote \(frames) frames")
        // ... after the context is closed (the end of withRenderContext):
        if let signal { exit(GracefulStop.exitStatus(for: signal)) }    // 130 (SIGINT) or 143 (SIGTERM)
    }
    // docc: end

    // docc: ELImage/APITour 5
    static func tourRawDataOutput(movie: MovieInput, context: RenderContext) async throws {
        let output = RawDataOutput { image in print(image.timestamp, image[0, 0]) }   // time, top-left RGBA
        movie --> output
        try await movie.run(on: context)
        try await output.finish()
    }
    // docc: end

    // docc: ELImage/APITour 6
    static func tourCamera(encoder: VideoEncoder, context: RenderContext) throws {
        let camera = Camera(device: "/dev/video0", settings: CaptureSettings(.hd720, framesPerSecond: 30))
        camera --> Beauty() --> encoder
        try camera.start(on: context)                // V4L2 mmap streaming on its own producer thread
        try camera.setValue(10, forControlNamed: "brightness")   // any control; unsupported or out of range throws
        try camera.setExposure(.automatic)
        print(camera.mode?.description ?? "-", camera.statistics)   // MJPG 1280x720 @ 30 fps; frames captured, delivered, dropped
        try camera.switchDevice(to: "/dev/video2")     // "switch cameras" while the graph keeps running
    }
    // docc: end

    // docc: ELImage/CustomNodes 1
    static func customFilter(context: RenderContext) async throws {
        let tint = ShaderFilter(name: "tint", fragmentShader: """
            #version 300 es
            precision highp float;
            in vec2 textureCoordinate;
            uniform sampler2D inputImageTexture;
            uniform vec3 tint;
            out vec4 fragColor;
            void main() { fragColor = texture(inputImageTexture, textureCoordinate) * vec4(tint, 1.0); }
            """, reads: .ownPixel)  // it reads its input only at the pixel it writes
        tint.setUniform("tint", .vec3([1, 0.9, 0.8]))
        try await context.perform { try tint.prepare(in: $0) }  // compile now, throw here if it is wrong
    }
    // docc: end

    // docc: ELImage/EventsAndErrors 1
    static func events(context: RenderContext, movie: MovieInput) async throws {
        let events = context.events              // subscribed now: nothing after this is missed
        let log = Task {
            for await event in events {          // ends when the context closes
                switch event {
                case .failed(let failure): print("error:", failure)    // "Crop#3f2a failed: ..."
                case .sourceEnded(let end): print(end)                 // its node and final statistics
                default: break                   // .dropped, .statistics, .sinkFinished, .message, .lost, .closed
                }
            }
        }
        try? await movie.run(on: context)        // a failure that ends it is also thrown: the same one
        await context.close()
        await log.value
    }
    // docc: end

    // docc: ELImageCamera/VirtualCameraOutput 1
    static func virtualCamera(movie: MovieInput, context: RenderContext) async throws {
        let loopback = EmulatedLoopbackDevice(path: "/dev/video10")
        let io = EmulatedDeviceIO([], loopbacks: [loopback])
        let viewer = loopback.attachConsumer()                     // a video call reading the camera
        let virtual = try VirtualCamera(device: "/dev/video10", settings: VirtualCameraSettings(width: 1280, height: 720),
                                        io: io)
        let events = context.events                                // subscribed before the run
        movie --> virtual
        try await movie.run(on: context)
        try await virtual.finish()
        print(virtual.statistics.framesWritten, viewer.frames.count)
        await context.close()                                      // the events end here
        for await event in events {
            if let change = event.message(VirtualCameraEvent.self) { print(change) }   // "writing YUYV 1280x720 @ 30 fps"
        }
    }
    // docc: end

    // docc: ELImageDetection/FacesCodesAndPeople 1
    static func facesAndCodes(source: MovieInput, encoder: VideoEncoder, context: RenderContext) async throws {
        let overlay = MetadataOverlay()          // draws the latest boxes and outlines into the video
        let faces = try DetectorOutput(detector: try FaceDetector(), settings: .init(interval: 2)) { metadata in
            overlay.show(metadata)               // on the detector's thread, as each analysis ends
            for face in metadata.faces { print(face) }   // face 3 at (120, 48) 64×72 px, confidence 0.80
        }
        source --> faces                         // the side branch, first: the overlay gets its result
        source --> overlay --> encoder           // the main path
        try encoder.start(recordingTo: "faces.mp4")
        try await source.run(on: context)        // every second frame analysed, each result already handled
        for await metadata in faces.metadata { print(metadata.frame, metadata.faces.count) }  // ends with the stream
        print(faces.statistics)                  // 10 frames in, 5 sampled, 5 analysed, 0 dropped
    }
    // docc: end

    // docc: ELImageDetection/FacesCodesAndPeople 2
    static func people(camera: Camera, encoder: VideoEncoder) throws {
        let blur = BackgroundBlur(strength: 0.7)            // or BackgroundReplace(background:), PersonMaskFilter()
        let people = try DetectorOutput(detector: try PersonSegmenter(),
                                        settings: .init(maximumRate: 10)) { blur.follow($0) }
        camera --> people
        camera --> blur --> encoder
    }
    // docc: end

    // docc: ELImageMedia/LiveStreaming 1
    static func liveStreaming(movie: MovieInput, context: RenderContext) async throws {
        var live = EncoderSettings()
        live.tune = "zerolatency"
        live.rateControl = .bitrate(kilobitsPerSecond: 2500, maximumKilobitsPerSecond: 2500, bufferKilobits: 2500)
        live.keyframeInterval = 50                                   // a keyframe every 2 s at 25 fps
        let stream = try VideoEncoder(settings: live)
        let recorder = try VideoEncoder()                            // every frame, whatever the link does
        movie --> stream
        movie --> recorder
        var options = LiveStreamOptions()
        options.reconnectWindow = .seconds(60)
        try stream.start(streamingTo: StreamTarget(validating: "rtmp://127.0.0.1/live/cam"), options: options)
        try recorder.start(recordingTo: "local.mp4")
        try await movie.run(on: context)
        let summary = try await stream.finish()
        print(summary.statistics.stream?.description ?? "")        // "132 frames sent to rtmp://127.0.0.1/live/…, 0 dropped"
        try await recorder.finish()
    }
    // docc: end

    // docc: ELImageMedia/SoundAndDrift 1
    static func microphone(camera: Camera, encoder: VideoEncoder, context: RenderContext) async throws {
        let microphone = try PulseAudioCapture(options: .init(device: "default", clock: MediaClock()))
        camera --> MediaClockAnchor(clock: microphone.options.clock, timing: camera)   // one clock, from each frame's capture
        camera --> encoder
        try encoder.start(recordingTo: "clip.mp4", audio: .track(microphone))
        try camera.start(on: context)
        // ... record ...
        await camera.finish()
        try await encoder.finish()
        await microphone.close()
    }
    // docc: end

    // docc: ELImagePreview/PreviewWindows 1
    static func previewWindow(source: MovieInput) throws {
        let display = try PreviewDisplay.connect()
        let context = try RenderContext(windowSystem: display)
        let window = try PreviewWindow(context: context, display: display, options: .init(title: "preview"))
        window.onCloseRequest = { Task { await source.close() } }   // q, Escape, the close button
        source --> Beauty() --> window
    }
    // docc: end
}
