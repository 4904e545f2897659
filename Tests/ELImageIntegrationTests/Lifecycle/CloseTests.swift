import ELImage
import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import ELImageMedia
import Foundation
import Testing

/// `RenderContext.close()`: the explicit end of a pipeline, in the situations that used to hang
/// or crash: frames in flight, a close from a frame callback, twice, after a failed start.
@Suite("Closing a pipeline", .timeLimit(.minutes(10)))
struct CloseTests {
    @Test("Close while a movie is being encoded: the run ends, the MP4 holds exactly the frames encoded, no thread is left")
    func closeWithFramesInFlight() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try RenderContext()
        let movie = try MovieInput(path: MovieFixtures.bunny)
        let encoder = try VideoEncoder()
        let path = folder.path("inflight.mp4")
        let seen = Collector<MediaTime>()
        let closing = CloseBegun()
        movie --> Grayscale() --> encoder
        movie --> FrameTap { frame in
            seen.append(frame.timestamp)
            // From frame 10, frames wait for the close to begin: on a loaded machine this task may
            // not run before the whole clip went through.
            if seen.count >= 10 { closing.pace() }
        }
        try encoder.start(recordingTo: path)

        async let run: Void = movie.run(on: context)
        #expect(await seen.waitForCount(10, timeout: .seconds(300)))
        closing.mark()
        await context.close()   // the source is still decoding: close stops it and drains the encoder
        try await run

        #expect(context.isClosed)
        #expect(context.runningThreadNames.isEmpty)
        let encoded = encoder.statistics.encoded
        #expect(encoded >= 10 && encoded < MovieFixtures.bunnyFrameCount, "closed mid-run, \(encoded) frames encoded")
        #expect(try EncoderFixtures.decodedFrameCount(path) == encoded)
        #expect(encoder.currentState == .idle)
    }

    @Test("Close from inside a frame callback: no deadlock, the run returns, a second close waits for the first")
    func closeFromCallback() async throws {
        let context = try RenderContext()
        let movie = try MovieInput(path: MovieFixtures.bunny)
        let closer = CloseOnce(context)
        let frames = Collector<MediaTime>()
        movie --> FrameTap { frame in
            frames.append(frame.timestamp)
            if frames.count == 5 { closer.start() }  // on the render thread, inside a delivery
            // Until the close has begun, later frames wait a little: on a loaded machine the close's
            // task may not get a thread before the whole clip went through.
            if frames.count >= 5 { closer.pace() }
        }
        try await movie.run(on: context)
        await closer.wait()
        await context.close()
        #expect(context.isClosed)
        #expect(context.runningThreadNames.isEmpty)
        #expect(frames.count >= 5 && frames.count < MovieFixtures.bunnyFrameCount)
    }

    @Test("Double close, concurrent and sequential: one teardown, then every use throws 'closed'")
    func doubleClose() async throws {
        let context = try RenderContext()
        let input = RawDataInput()
        let (sink, images) = imageCollector()
        input --> Grayscale() --> sink
        try await input.process([UInt8](repeating: 200, count: 16 * 16 * 4), width: 16, height: 16, format: .rgba,
                                timestamp: .zero, on: context)
        #expect(images.count == 1)
        async let first: Void = context.close()
        async let second: Void = context.close()
        _ = await (first, second)
        await context.close()
        #expect(context.isClosed)
        #expect(context.runningThreadNames.isEmpty)
        await #expect(throws: ELImageError.closed(what: "the render context")) {
            try await context.perform { _ in 1 }
        }
        #expect(throws: ELImageError.closed(what: "the render context")) {
            try context.performAndWait { _ in 1 }
        }
        #expect(throws: ELImageError.closed(what: "the render context")) { try context.makeSharedContext() }
    }

    @Test("A call after close throws, and the context can go while the late job's run is still returning (the sanitizers watch it)")
    func lateCallThenRelease() async throws {
        for _ in 0..<40 {
            let context = try RenderContext()
            await context.close()
            await #expect(throws: ELImageError.closed(what: "the render context")) {
                try await context.perform { _ in 1 }
            }
            // The context, its last reference here, goes now, on this task's thread: the late job
            // that threw may still be returning on the thread that ran it.
        }
    }

    @Test("Close after failed starts (unwritable recording, missing camera): clear errors, nothing left running")
    func closeAfterFailedStart() async throws {
        let context = try RenderContext()
        let encoder = try VideoEncoder()
        let unwritable = #expect(throws: ELImageError.self) { try encoder.start(recordingTo: "/nonexistent-folder/x.mp4") }
        #expect(unwritable.map { "\($0)" }?.contains("/nonexistent-folder/x.mp4") == true, "\(String(describing: unwritable))")
        let camera = Camera(device: "/dev/video-none", io: EmulatedDeviceIO([]))
        let missing = #expect(throws: ELImageError.self) { try camera.start(on: context) }
        #expect(missing.map { "\($0)" }?.contains("/dev/video-none") == true, "\(String(describing: missing))")
        await context.close()
        #expect(context.runningThreadNames.isEmpty)
        let afterClose = #expect(throws: ELImageError.self) { try camera.start(on: context) }
        #expect(afterClose.map { "\($0)" }?.contains("used after close()") == true, "\(String(describing: afterClose))")
        let unstarted = await #expect(throws: ELImageError.self) { try await encoder.finish() }
        #expect(unstarted.map { "\($0)" }?.contains("no recording was started") == true, "\(String(describing: unstarted))")
    }

    @Test("Close finishes a recording nobody stopped, a Y4M file nobody finished, and fails a pending snapshot")
    func closeDrainsSinks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try RenderContext()
        let frames = try EncoderFixtures.pannedAstronaut(width: 96, height: 64, count: 8)
        let input = RawDataInput()
        let encoder = try VideoEncoder()
        let y4m = try FileOutput.y4m(path: folder.path("out.y4m"))
        let snapshot = Snapshot()
        input --> encoder
        input --> y4m
        input --> snapshot
        try encoder.start(recordingTo: folder.path("out.mp4"))
        try await EncoderFixtures.feed(frames, into: input, on: context)
        let photoPath = folder.path("never.png")
        let photo = Task { try await snapshot.capture(to: photoPath) }
        #expect(await waitUntil { snapshot.pendingCount == 1 })
        await context.close()   // no end-of-stream was sent: close itself finishes the files

        #expect(try EncoderFixtures.decodedFrameCount(folder.path("out.mp4")) == frames.count)
        #expect(try EncoderFixtures.decodedFrameCount(folder.path("out.y4m")) == frames.count)
        await #expect(throws: ELImageError.self) { try await photo.value }
        #expect(!FileManager.default.fileExists(atPath: folder.path("never.png")))
        #expect(context.runningThreadNames.isEmpty)
    }

    @Test("A camera closed with its context: capture and delivery threads joined, end-of-stream delivered")
    func cameraClose() async throws {
        let context = try RenderContext()
        let io = EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0")])
        let camera = Camera(device: "/dev/video0", settings: CaptureSettings(width: 320, height: 240), io: io)
        let ended = Collector<Bool>()
        let frames = Collector<MediaTime>()
        camera --> FrameTap(onEnd: { ended.append(true) }) { frames.append($0.timestamp) }
        try camera.start(on: context)
        #expect(await frames.waitForCount(3, timeout: .seconds(300)))
        #expect(context.runningThreadNames.contains { $0.hasPrefix("ELImage.camera") })
        await context.close()
        #expect(ended.count == 1)
        #expect(context.runningThreadNames.isEmpty)
        #expect(!camera.isRunning)
    }

    @Test("A context released without close() ends in the background: no hang, no crash")
    func forgottenClose() async throws {
        for _ in 0..<3 {
            let context = try RenderContext()
            let input = RawDataInput()
            let (sink, images) = imageCollector()
            input --> sink
            try await input.process([UInt8](repeating: 9, count: 8 * 8 * 4), width: 8, height: 8, format: .rgba,
                                    timestamp: .zero, on: context)
            #expect(images.count == 1)
        }
    }
}

/// A sink that calls back for every frame (on the render thread) and at end-of-stream.
final class FrameTap: ImageInput, Sendable {
    let inputSlots = InputSlots()
    private let onFrame: @Sendable (TextureFrame) -> Void
    private let onEnd: @Sendable () -> Void

    init(onEnd: @escaping @Sendable () -> Void = {}, _ onFrame: @escaping @Sendable (TextureFrame) -> Void) {
        self.onFrame = onFrame
        self.onEnd = onEnd
    }

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws { onFrame(frame) }
    func endOfStream(at index: Int, in context: isolated RenderContext) { onEnd() }
}

/// Starts a context's close once, from wherever (a frame callback), and lets a test await it.
/// Lets a frame callback wait until a close has begun, so that a test of closing mid-run does not
/// depend on how soon a loaded machine runs the closing task.
final class CloseBegun: Sendable {
    private let begun = Gate()

    /// Says the close begins now.
    func mark() { begun.open() }

    /// Blocks the calling (render) thread until `mark()`, then 10 ms more: from then on the graph
    /// is a slow consumer, so that the close meets the source before the clip runs out.
    func pace() {
        begun.pass()
        usleep(10_000)
    }
}

final class CloseOnce: Sendable {
    private let context: RenderContext
    private let task = Locked<Task<Void, Never>?>(nil)
    private let begun = CloseBegun()

    init(_ context: RenderContext) { self.context = context }

    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [context, begun] in
                begun.mark()
                await context.close()
            }
        }
    }

    /// Waits (on the render thread) until the close's task has begun, then 10 ms more.
    func pace() { begun.pace() }

    func wait() async { await task.withLock { $0 }?.value }
}
