import ELImage
import ELImageCamera
import ELImageDetection
import ELImageKit
import ELImageMedia
import ELImagePreview
import ELImageTesting
import Testing

// The code of every DocC landing page (Sources/<module>/<module>.docc/<module>.md) as written there,
// but for its imports, between "docc: <module> <n>" and "docc: end" (n: the page's nth Swift block):
// compiled with the tests against the real API, and checked to be the pages' text by
// DocCExampleTests. A page's free names (a `source`, an `encoder`) are parameters here. Change a
// page and this file together.

// docc: ELImageTesting 1
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
    // docc: ELImage 1
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

    // docc: ELImageCamera 1
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

    // docc: ELImageDetection 1
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

    // docc: ELImageKit 1
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

    // docc: ELImageMedia 1
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

    // docc: ELImagePreview 1
    static func preview(source: MovieInput) throws {
        let display = try PreviewDisplay.connect()        // WAYLAND_DISPLAY, else DISPLAY
        let context = try RenderContext(windowSystem: display)
        let window = try PreviewWindow(context: context, display: display, options: .init(title: "preview"))
        window.onCloseRequest = { Task { await source.close() } }   // q, Escape, the close button
        source --> Beauty() --> window
    }
    // docc: end

    // docc: ELImageTesting 2
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

    // docc: ELImageTesting 3
    static func emulatedCamera(pipeline: EmbeddedPipeline) throws {
        let io = EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0")])
        let camera = Camera(device: "/dev/video0", settings: CaptureSettings(width: 320, height: 240), io: io)
        camera --> pipeline.output
        try camera.start(on: pipeline.context)   // real frames from the emulated driver
    }
    // docc: end
}
