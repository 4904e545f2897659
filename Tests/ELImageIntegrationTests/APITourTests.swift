import ELImage
import ELImageCamera
import ELImageDetection
import ELImageMedia
import ELImageTesting
import ELImageTestSupport
import Foundation
import Testing

// The snippets of the DocC articles "A tour of the API", "Writing your own filter, sink and source"
// (ELImage), "Sound and drift", "Live streaming and latency" (ELImageMedia), "A virtual camera"
// (ELImageCamera), "Faces, codes, landmarks, reshape and people" (ELImageDetection), "Testing your
// own nodes" (ELImageTesting) and README.md's first pipeline, each run on the bundled media (file
// names become paths in a temporary folder, `/dev/video0` an emulated camera) and checked for what
// the pages say it does. The code between "docc: <page> <n>" and "docc: end" is the page's block
// as written (DocCExampleTests checks it); change the page and this file together.

/// README.md's first pipeline: a movie → beauty → an MP4 with the movie's sound, and a snapshot.
// docc: README 1
func beautify(_ movie: String, into video: String, snapshot picture: String) async throws -> RecordingSummary {
    try await withRenderContext { context in         // EGL + GLES 3 on a render thread of its own
        let source = try MovieInput(path: movie)     // MP4, MOV, MKV, WebM, raw H.264
        let beauty = Beauty(strength: 0.7)           // smooths skin only
        let encoder = try VideoEncoder()             // x264 into fragmented MP4, with the movie's sound
        let snapshot = Snapshot()
        source --> beauty --> encoder
        beauty --> snapshot                          // fan-out: the same frames to both
        try encoder.start(recordingTo: video)        // written as VIDEO.partial until it ends
        async let still = snapshot.capture(to: picture)
        try await source.run(on: context)            // decodes, filters and encodes every frame
        _ = try await still
        return try await encoder.finish()            // the file is complete: frames, size, drops
    }                                                // closed: every thread joined
}
// docc: end

/// "Writing your own filter, sink and source": a filter type of your own (and "Testing your own
/// nodes").
// docc: ELImage/CustomNodes 2
final class Dim: SinglePassFilter, ParameterizedFilter {
    struct Parameters: Sendable {
        @Uniform("amount", in: 0...1) var amount: Float = 1
    }
    let parameters = Parameters()
    let pass = ShaderPass(name: "dim", fragmentShader: """
        #version 300 es
        precision highp float;
        in vec2 textureCoordinate;
        uniform sampler2D inputImageTexture;
        uniform float amount;
        out vec4 fragColor;
        void main() {
            vec4 color = texture(inputImageTexture, textureCoordinate);
            fragColor = vec4(color.rgb * amount, color.a);
        }
        """)
    let outputs = OutputTargets()                                  // its targets (graph membership)
    var reads: InputReading { .ownPixel }                          // colour before it runs in its pass
}
// docc: end

/// A node that raises `signal` in this process when the `frame`th frame (from 0) goes by: the
/// Ctrl-C of the graceful-stop snippet, at a known point.
private final class SignalAtFrame: ImageInput, Sendable {
    let inputSlots = InputSlots()
    let frame: Int
    let signal: Int32
    private let seen = Locked(0)

    init(frame: Int, signal: Int32) {
        self.frame = frame
        self.signal = signal
    }

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        let number = seen.withLock { seen in
            defer { seen += 1 }
            return seen
        }
        if number == self.frame { kill(getpid(), signal) }
    }
}

@Suite("DocC: the articles' snippets run as written", .serialized)
struct APITourTests {
    let clip = Repository.path("Examples/Media/bigbuckbunny.mp4")
    /// One AAC frame of the clip's sound (1024 samples at 48 kHz), in seconds.
    let audioFrame = 1024.0 / 48_000

    /// The whole clip goes through the same graph in `composeAndRunAFile`; here its first second
    /// (cut by ffmpeg, sound included) is enough to run README's code as written.
    @Test("README's first pipeline: a movie through beauty into an MP4 of all its frames with its sound, and a snapshot")
    func readmePipeline() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let movie = folder.path("second.mp4")
        try runTool("ffmpeg", ["-v", "error", "-i", clip, "-t", "1", "-c", "copy", movie])
        let frames = try EncoderFixtures.decodedFrameCount(movie)
        #expect(frames >= 24, "ffmpeg cut \(frames) frames")
        let video = folder.path("beauty.mp4"), picture = folder.path("beauty.png")
        let summary = try await beautify(movie, into: video, snapshot: picture)
        #expect(summary.statistics.encoded == frames, "\(summary)")
        #expect(try AudioProbe.streams(video, kind: "a").count == 1, "the movie's sound")
        let still = try PNGFile.read(picture)
        #expect((still.width, still.height) == (1280, 720))
    }

    @Test("Compose and run a file: out.mp4 holds the 132 filtered frames and the movie's sound, sample for sample, as long as the video; still.png is a frame")
    func composeAndRunAFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let out = folder.path("out.mp4"), stillPath = folder.path("still.png")
        let printed = Locked<[String]>([])

        try await withRenderContext { context in     // EGL + GLES 3 on its own render thread
            context.setErrorHandler { failure in print("pipeline error:", failure) }

            let movie = try MovieInput(path: clip)
            let beauty = Beauty(strength: 0.7)
            let encoder = try VideoEncoder(settings: EncoderSettings())     // x264, veryfast, CRF 23
            let snapshot = Snapshot()
            movie --> beauty --> encoder
            beauty --> snapshot                           // fan-out

            try encoder.start(recordingTo: out)           // fragmented MP4 (out.mp4.partial until it ends)
            async let still = snapshot.capture(to: stillPath)                // the next frame, as PNG
            try await movie.run(on: context)              // decodes, filters and encodes every frame
            let summary = try await encoder.finish()        // finalises the file
            let line = "\(summary) \(try await still.path)"
            print(line)
            printed.withLock { $0.append(line) }
        }

        let line = try #require(printed.withLock { $0 }.first)
        #expect(line.hasPrefix("\(out): 132 frames, 5.280 s, 1280x720, "), "\(line)")
        #expect(line.hasSuffix("0 dropped (end of stream) \(stillPath)"), "\(line)")
        let picture = try PNGFile.read(stillPath)
        #expect((picture.width, picture.height) == (1280, 720))
        // The sound came along: the movie's own track, as long as the video, the same samples.
        let video = try #require(try AudioProbe.streams(out, kind: "v").first)
        let audio = try #require(try AudioProbe.streams(out, kind: "a").first, "out.mp4 has no sound")
        #expect(audio.codec == "aac")
        #expect(abs(video.duration - 5.28) < 0.001)
        #expect(audio.start == video.start)
        let gap: Double = abs(audio.duration - video.duration)
        #expect(gap <= audioFrame, "audio \(audio.duration) s, video \(video.duration) s")
        let copied = try AudioProbe.samples(out), source = try AudioProbe.samples(clip)
        let expected: Int = 6 * Int((5.28 - audioFrame) * 48_000)  // 6 channels, less at most one frame
        #expect(copied.count >= expected)
        #expect(copied == Array(source.prefix(copied.count)), "the decoded sound differs from the movie's")
    }

    @Test("The sound comes along, unless audio: .off: silent.mp4 has no sound track")
    func soundOff() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let silent = folder.path("silent.mp4")
        try await withRenderContext { context in
            let movie = try MovieInput(path: clip, options: .init(frameRange: 0..<25))
            let encoder = try VideoEncoder()
            movie --> encoder
            try encoder.start(recordingTo: silent, audio: .off)           // no sound track
            try await movie.run(on: context)
            #expect(try await encoder.finish().statistics.audio.packetsWritten == 0)
        }
        #expect(try AudioProbe.streams(silent, kind: "v").count == 1)
        #expect(try AudioProbe.streams(silent, kind: "a").isEmpty)
    }

    @Test("Ctrl-C: a SIGINT at frame 40 stops the movie; the body's value and the signal come back; the file holds exactly those frames")
    func gracefulStop() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("out.mp4")
        // GracefulStop leaves SIGINT ignored (swift-service-lifecycle's trap): the default again after.
        defer { signal(SIGINT, SIG_DFL) }
        let outcome = try await withRenderContext { context in
            let movie = try MovieInput(path: clip)
            let encoder = try VideoEncoder()
            movie --> encoder
            movie --> SignalAtFrame(frame: 40, signal: SIGINT)   // the test's Ctrl-C
            try encoder.start(recordingTo: path)

            let (frames, signal) = try await GracefulStop.run(onSignal: { _ in await movie.close() }) {
                try await movie.run(on: context)              // returns early once onSignal has cancelled it
                return try await encoder.finish().statistics.encoded
            }
            print("wrote \(frames) frames")
            return (frames, signal)
        }
        // ... after the context is closed: `exit(GracefulStop.exitStatus(for: signal))` in a program.
        let signal = try #require(outcome.1, "no signal came back")
        #expect(signal.rawValue == SIGINT)
        #expect(GracefulStop.exitStatus(for: signal) == 130)
        #expect(outcome.0 > 40 && outcome.0 < 132, "\(outcome.0) frames")
        let packets = try AudioProbe.packetEnds(path, kind: "v").count
        #expect(packets == outcome.0, "the file holds \(packets) frames, the summary says \(outcome.0)")
    }

    @Test("CPU frames: FrameStream's sequence has the 132 frames' times and ends after the last")
    func frameStream() async throws {
        let received = try await withRenderContext { context in
            let movie = try MovieInput(path: clip)

            // docc: ELImage/APITour 4
            let stream = try FrameStream(format: .rgba)          // or .i420, .nv12, ... (converted on the GPU)
            movie --> Beauty() --> stream
            async let times = stream.frames.reduce(into: [MediaTime]()) { $0.append($1.timestamp) }  // $1.data: the bytes
            try await movie.run(on: context)
            try await stream.finish()                            // returns once the consumer has had every frame
            print(try await times.count)                         // 132
            // docc: end
            return try await times
        }
        #expect(received.count == 132)
        let expected = (0..<132).map { Double($0) / 25 }
        #expect(zip(received, expected).allSatisfy { abs($0.seconds - $1) < 1e-9 }, "\(received.prefix(3))")
    }

    @Test("CPU frames: RawDataOutput's closure sees every frame in order; the first one's top-left pixel is FFmpeg's")
    func rawDataOutput() async throws {
        let seen = Locked<[(time: MediaTime, pixel: SIMD4<UInt8>)]>([])
        try await withRenderContext { context in
            let movie = try MovieInput(path: clip)

            // As in the tour, with `print(image.timestamp, image[0, 0])` kept for the checks.
            let output = RawDataOutput { image in seen.withLock { $0.append((image.timestamp, image[0, 0])) } }
            movie --> output
            try await movie.run(on: context)
            try await output.finish()
        }
        let frames = seen.withLock { $0 }
        #expect(frames.count == 132)
        #expect(frames.map(\.time.seconds) == frames.map(\.time.seconds).sorted())
        // FFmpeg's decode of the first frame (BT.709, limited range), top-left pixel.
        let reference = try runTool("ffmpeg", ["-v", "error", "-i", clip, "-frames:v", "1", "-vf", "crop=2:2:0:0",
                                               "-pix_fmt", "rgb24", "-f", "rawvideo", "-"])
        let first = try #require(frames.first?.pixel)
        for channel in 0..<3 {
            #expect(abs(Int(first[channel]) - Int(reference[channel])) <= 4, "\(first) against FFmpeg's \(Array(reference.prefix(3)))")
        }
    }

    @Test("A camera, with controls: an emulated webcam in 720p at 30 fps, brightness and exposure set, the device switched while frames flow")
    func camera() async throws {
        let io = EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0"), EmulatedVideoDevice(path: "/dev/video2")])
        try await withRenderContext { context in
            let encoder = try VideoEncoder()
            let frames = FrameCounter()

            let camera = Camera(device: "/dev/video0", settings: CaptureSettings(.hd720, framesPerSecond: 30), io: io)
            camera --> Beauty() --> encoder
            camera --> frames
            try camera.start(on: context)                // V4L2 mmap streaming on its own producer thread
            try camera.setValue(10, forControlNamed: "brightness")   // any control; unsupported or out of range throws
            try camera.setExposure(.automatic)
            print(camera.mode?.description ?? "-", camera.statistics)   // MJPG 1280x720 @ 30 fps; frames captured, delivered, dropped
            #expect(try camera.value(ofControlNamed: "brightness") == 10)
            #expect(await waitUntil { frames.count >= 3 })
            #expect(camera.mode.map { ($0.width, $0.height) } ?? (0, 0) == (1280, 720))
            try camera.switchDevice(to: "/dev/video2")     // "switch cameras" while the graph keeps running
            let before = frames.count
            #expect(await waitUntil { frames.count >= before + 3 }, "no frame from /dev/video2")
            #expect(camera.devicePath == "/dev/video2")
            #expect(throws: ELImageError.self) { try camera.setValue(1000, forControlNamed: "brightness") }
        }
    }

    @Test("Custom filters: the tint shader compiles when prepared and multiplies by its uniform")
    func shaderFilter() async throws {
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
        let pipeline = try EmbeddedPipeline { input in input --> tint }
        try await pipeline.context.perform { try tint.prepare(in: $0) }  // compile now, throw here if it is wrong
        let out = try await pipeline.send(RGBAImage(width: 1, height: 1, pixels: [200, 200, 200, 255]))
        let leftovers = await pipeline.finish()
        #expect(leftovers.isEmpty, "\(leftovers)")
        let pixel = try #require(out.first)[0, 0]
        #expect(abs(Int(pixel.x) - 200) <= 1 && abs(Int(pixel.y) - 180) <= 1 && abs(Int(pixel.z) - 160) <= 1, "\(pixel)")
    }

    @Test("Testing your own nodes: Dim at 0.5 in an EmbeddedPipeline halves the colour, keeps alpha, leaves nothing over")
    func embeddedPipeline() async throws {
        // docc: ELImageTesting/TestingYourNodes 1
        let dim = Dim()
        dim.amount = 0.5
        let pipeline = try EmbeddedPipeline { input in input --> dim }
        let out = try await pipeline.send(RGBAImage(width: 2, height: 2, pixels: [UInt8](repeating: 200, count: 16)))
        #expect(out.count == 1 && out[0][0, 0] == SIMD4(100, 100, 100, 200))
        let leftovers = await pipeline.finish()
        #expect(leftovers.isEmpty, "\(leftovers)")
        // docc: end
        #expect(dim.amount == 0.5)
        dim.amount = 7
        #expect(dim.amount == 1)  // clamped to its range
    }

    @Test("Sound: a microphone (PulseAudio's 440 Hz sine source) beside an emulated camera: clip.mp4 holds the tone, as long as the video")
    func microphone() async throws {
        let server = try await PulseAudioServer.start()
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("clip.mp4")
        let io = EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0")])
        try await withRenderContext { context in
            let camera = Camera(device: "/dev/video0", settings: CaptureSettings(width: 320, height: 240, framesPerSecond: 30), io: io)
            let encoder = try VideoEncoder()
            let frames = FrameCounter()
            camera --> frames

            // As in the tour, with the test's server and its sine source for "default".
            let microphone = try PulseAudioCapture(options: .init(device: "sine", server: server.address, clock: MediaClock()))
            camera --> MediaClockAnchor(clock: microphone.options.clock, timing: camera)   // one clock, from each frame's capture
            camera --> encoder
            try encoder.start(recordingTo: path, audio: .track(microphone))
            try camera.start(on: context)
            #expect(await waitUntil(timeout: .seconds(30)) { frames.count >= 60 })  // ... record ...
            await camera.finish()
            try await encoder.finish()
            await microphone.close()
        }
        let audio = try #require(try AudioProbe.streams(path, kind: "a").first, "clip.mp4 has no sound")
        #expect(audio.codec == "aac")
        let lastFrame = try #require(try AudioProbe.packetEnds(path, kind: "v").max())
        let audioEnd: Double = audio.start + audio.duration
        #expect(abs(audioEnd - lastFrame) <= 0.1, "audio ends at \(audioEnd) s, the last frame at \(lastFrame) s")
        let peak = try #require(AudioProbe.dominantFrequency(try AudioProbe.samples(path, channels: 1), rate: 48_000))
        #expect(abs(peak - 440) <= 2, "the loudest frequency is \(peak) Hz")
    }

    @Test("Live streaming: the movie streamed to nginx-rtmp and recorded beside it; the summary says every frame was sent, nginx has them all")
    func liveStreaming() async throws {
        let server = try PrivateStreamingServer.start()
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        // The article's source is a movie paced as a camera would deliver it; its address, this server's.
        let movie = try MovieInput(path: clip, options: .init(pacing: .realTime))
        let address = server.rtmpURL(stream: "cam")
        let localFile = folder.path("local.mp4")

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
        try stream.start(streamingTo: StreamTarget(validating: address), options: options)
        try recorder.start(recordingTo: localFile)
        try await movie.run(on: context)
        let summary = try await stream.finish()
        let said = summary.statistics.stream?.description ?? ""
        try await recorder.finish()
        server.stopKeepingFiles()

        let sent = try #require(summary.statistics.stream)
        #expect(said == "\(sent.framesSent) frames sent to rtmp://127.0.0.1:\(server.rtmpPort)/live/…, 0 dropped", "\(said)")
        let files = server.recordings()
        try #require(files.count == 1)
        #expect(try StreamProbe.packetCounts(files[0]).video == sent.framesSent)
        #expect(try StreamProbe.packetCounts(localFile).video == sent.framesSent, "the recording beside has the same frames")
    }

    @Test("A virtual camera: the clip written to an emulated v4l2loopback device at the size asked, every frame read by a consumer")
    func virtualCamera() async throws {
        let context = try TestContexts.make()
        let movie = try MovieInput(path: clip)
        var told: [String] = []

        let loopback = EmulatedLoopbackDevice(path: "/dev/video10")
        let io = EmulatedDeviceIO([], loopbacks: [loopback])
        let viewer = loopback.attachConsumer()                     // a video call reading the camera
        let virtual = try VirtualCamera(device: "/dev/video10", settings: VirtualCameraSettings(width: 1280, height: 720),
                                        io: io)
        let events = context.events                                // subscribed before the run
        movie --> virtual
        try await movie.run(on: context)
        try await virtual.finish()
        await context.close()                                      // the events end here
        for await event in events {
            if let change = event.message(VirtualCameraEvent.self) { told.append("\(change)") }   // "writing YUYV 1280x720 @ 30 fps"
        }

        #expect(told == ["writing YUYV 1280x720 @ 30 fps"])
        let statistics = virtual.statistics
        #expect(statistics.framesWritten + statistics.framesDropped == 132)
        // Unpaced, on a busy machine the writer may fall behind and drop some (counted); most arrive.
        #expect(statistics.framesWritten == viewer.frames.count && statistics.framesWritten >= 66, "\(statistics)")
        #expect(viewer.frames.allSatisfy { $0.fourCC == .yuyv && $0.width == 1280 && $0.height == 720 })
    }

    @Test("Faces and codes: Grace Hopper's portrait, 10 frames: every second one analysed, each face handled before run(on:) returns; the sequence ends with the stream")
    func faces() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let handled = Locked<[Int]>([])
        let (streamed, statistics) = try await withRenderContext { context in
            let encoder = try VideoEncoder()
            let source = try StillImageInput(path: Repository.path("Examples/Media/grace_hopper.jpg"),
                                             options: .init(repeatCount: 10))

            let overlay = MetadataOverlay()          // draws the latest boxes and outlines into the video
            let faces = try DetectorOutput(detector: try FaceDetector(), settings: .init(interval: 2)) { metadata in
                overlay.show(metadata)               // on the detector's thread, as each analysis ends
                for face in metadata.faces { print(face) }   // face 3 at (120, 48) 64×72 px, confidence 0.80
                handled.withLock { $0.append(metadata.faces.count == 1 ? metadata.frame : -1) }
            }
            source --> faces                         // the side branch, first: the overlay gets its result
            source --> overlay --> encoder           // the main path
            try encoder.start(recordingTo: folder.path("faces.mp4"))
            try await source.run(on: context)        // every second frame analysed, each result already handled
            #expect(handled.withLock { $0 } == [0, 2, 4, 6, 8], "one face in each analysed frame, before run(on:) returned")
            var streamed: [Int] = []
            for await metadata in faces.metadata { print(metadata.frame, metadata.faces.count); streamed.append(metadata.frame) }
            print(faces.statistics)                  // 10 frames in, 5 sampled, 5 analysed, 0 dropped
            try await encoder.finish()
            return (streamed, faces.statistics)
        }
        #expect(streamed == [0, 2, 4, 6, 8])
        #expect(statistics == .init(framesIn: 10, sampled: 5, analysed: 5, dropped: 0))
        #expect(try AudioProbe.packetEnds(folder.path("faces.mp4"), kind: "v").count == 10)
    }
}
