import Dispatch
import ELImage
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// CPU frames off the render thread: `RawDataOutput`, `YUVDataOutput` and `FrameStream` pack and
/// fence on the render thread and read back on a worker, which hands the frames over in order;
/// the render thread never waits for the consumer beyond the queue's capacity.
@Suite("CPU frames off the render thread", .closesContexts)
struct CPUFrameOutputTests {
    /// `count` distinct RGBA pictures (a gradient shifted by the frame number).
    static func pictures(count: Int, width: Int = 24, height: Int = 16) -> [[UInt8]] {
        (0..<count).map { number in
            var pixels = [UInt8](repeating: 255, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    pixels[offset] = UInt8((x * 10 + number * 7) % 256)
                    pixels[offset + 1] = UInt8((y * 15 + number * 3) % 256)
                    pixels[offset + 2] = UInt8((x + y + number * 40) % 256)
                }
            }
            return pixels
        }
    }

    static func time(_ number: Int) -> MediaTime { MediaTime(value: Int64(number), timescale: 30) }

    /// The `pictures` as 24x16 images stamped with their numbers (`first` and on).
    static func images(_ pictures: [[UInt8]], from first: Int = 0, width: Int = 24, height: Int = 16) -> [RGBAImage] {
        pictures.enumerated().map { RGBAImage(width: width, height: height, pixels: $1, timestamp: time(first + $0)) }
    }

    /// The name of the thread running now.
    static var threadName: String { Thread.current.name ?? "" }

    @Test("RawDataOutput: every frame, in order, exact pixels and times, handed over on its worker thread")
    func rawDataOutput() async throws {
        let pictures = Self.pictures(count: 6)
        let received = Collector<(image: RGBAImage, thread: String)>()
        let output = RawDataOutput { image in received.append((image, Self.threadName)) }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        try await pipeline.send(Self.images(pictures))
        #expect(try await output.finish() == pictures.count)
        #expect(await pipeline.finish().isEmpty)
        #expect(output.framesDelivered == pictures.count && output.framesDropped == 0)
        let values = received.values
        #expect(values.map(\.image.timestamp) == (0..<pictures.count).map(Self.time))
        #expect(zip(values, pictures).allSatisfy { $0.image.pixels == $1 }, "RGBA in, the same bytes out")
        #expect(values.allSatisfy { $0.thread == "ELImage.frames" }, "\(values.map(\.thread))")
    }

    @Test("The render thread goes on while the closure is held: the queue takes the frames, nothing is lost")
    func renderThreadDoesNotWaitForTheClosure() async throws {
        let pictures = Self.pictures(count: 4)
        let gate = Gate()
        let received = Collector<MediaTime>()
        let output = RawDataOutput(queueCapacity: 4) { image in
            if image.timestamp == Self.time(0) { gate.pass() }  // the first frame's consumer is stuck
            received.append(image.timestamp)
        }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        // Every frame is processed (packed, fenced, queued) while the closure still holds the first.
        try await pipeline.send(Self.images(pictures))
        #expect(received.count == 0, "the closure is still held on the first frame")
        gate.open()
        #expect(try await output.finish() == pictures.count)
        #expect(received.values == (0..<pictures.count).map(Self.time))
        #expect(await pipeline.finish().isEmpty)
    }

    @Test("YUVDataOutput on its worker equals the render thread's own readback, byte for byte (I420 and NV12)",
          arguments: [PixelFormat.i420, .nv12])
    func yuvDataOutput(format: PixelFormat) async throws {
        let pixels = try #require(Self.pictures(count: 1, width: 40, height: 24).first)
        let received = Collector<PixelBuffer>()
        let output = try YUVDataOutput(format: format, colorSpace: .bt709) { received.append($0) }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        let context = pipeline.context
        try await pipeline.send(RGBAImage(width: 40, height: 24, pixels: pixels, timestamp: Self.time(5)))
        #expect(try await output.finish() == 1)
        let reference = try await context.perform { context in
            var buffer = try PixelBuffer(format: format, width: 40, height: 24, colorSpace: .bt709)
            let source = try PixelBuffer(format: .rgba, width: 40, height: 24, data: pixels)
            try context.readPixels(of: try context.makeFrame(from: source), into: &buffer)
            return buffer
        }
        let buffer = try #require(received.values.first)
        #expect(buffer.data == reference.data)
        #expect(buffer.timestamp == Self.time(5) && buffer.colorSpace == .bt709)
    }

    @Test("A FrameWriter of the user's in YUVDataOutput: one per stream, made on the worker at its first frame, fed in order, finished at its end; its throw is the node's failure, the frames before it counted")
    func userFrameWriter() async throws {
        let pictures = Self.pictures(count: 3)
        let writers = Locked<[RecordingWriter]>([])
        let output = try YUVDataOutput(format: .i420) {
            let writer = RecordingWriter(failingAt: writers.withLock { $0.count } == 1 ? 1 : nil)  // the second stream's fails
            writers.withLock { $0.append(writer) }
            return writer
        }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        // The second stream ends at the frame its writer fails on (a frame after it would start
        // another run: `failureBeforeANewRun`).
        for stream in 0..<2 {
            try await pipeline.send(Self.images(stream == 0 ? pictures : Array(pictures.prefix(2)), from: stream * 10))
            try await pipeline.sendEndOfStream()
        }
        let error = await #expect(throws: (any Error).self) { try await output.finish() }
        #expect(error.map { "\($0)" }?.contains("the disk is full at frame 1") == true, "\(String(describing: error))")
        let logs = writers.withLock { $0.map { $0.log.withLock { $0 } } }
        try #require(logs.count == 2, "\(logs)")
        #expect(logs[0] == ["open ELImage.frames", "0 24x16", "1 24x16", "2 24x16", "finish", "publish"])
        #expect(logs[1].prefix(2) == ["open ELImage.frames", "0 24x16"] && logs[1].count == 3 && logs[1][2].hasPrefix("salvage"),
                "\(logs[1])")
        #expect(output.framesDelivered == 4, "three of the first stream, one of the second")
        let leftovers = await pipeline.finish()
        #expect(leftovers.failures.count == 1 && leftovers.failures.first?.hasPrefix("YUVDataOutput#") == true, "\(leftovers)")
    }

    @Test("A user's writer that fails mid-stream: finish() throws its failure, also after a later frame started a new run with a new writer; the frames before and after are counted")
    func failureBeforeANewRun() async throws {
        let made = Locked(0)
        let output = try YUVDataOutput(format: .i420) {
            made.withLock { count in
                count += 1
                return RecordingWriter(failingAt: count == 1 ? 1 : nil)
            }
        }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        let events = pipeline.context.events
        let pictures = Self.pictures(count: 3)
        try await pipeline.send(Self.images(Array(pictures.prefix(2))))  // the writer fails at the second
        // The run has ended (its output finished as failed) before the next frame comes.
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() {
            if case .sinkFinished(let end) = event, end.outcome == .failed { break }
        }
        try await pipeline.send(Self.images([pictures[2]], from: 2))  // a new run, a new writer
        let error = await #expect(throws: (any Error).self) { try await output.finish() }
        #expect(error.map { "\($0)" }?.contains("the disk is full at frame 1") == true, "\(String(describing: error))")
        #expect(made.withLock { $0 } == 2 && output.framesDelivered == 2, "frame 0 of the first run, frame 0 of the second")
        #expect(try await output.finish() == 2, "the failure is thrown once")
        #expect(await pipeline.finish().failures.count == 1)
    }

    @Test("A second stream after end-of-stream: the output takes frames again, counted over both")
    func secondStream() async throws {
        let pictures = Self.pictures(count: 2)
        let received = Collector<MediaTime>()
        // The first stream's closure is slow (a consumer, not a synchronisation): the second
        // stream's frames must still come after it, in order.
        let output = RawDataOutput { image in
            if image.timestamp < Self.time(10) { usleep(100_000) }
            received.append(image.timestamp)
        }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        for run in 0..<2 {
            try await pipeline.send(Self.images(pictures, from: run * 10))
            try await pipeline.sendEndOfStream()
        }
        #expect(try await output.finish() == 4)
        #expect(received.values == [0, 1, 10, 11].map(Self.time))
        // The first stream's worker may still wait to be joined (by the context's close) here.
        let leftovers = await pipeline.finish()
        #expect(leftovers.framesInUse == 0 && leftovers.failures.isEmpty && leftovers.threadsAfterClose.isEmpty, "\(leftovers)")
    }

    @Test("FrameStream: an async consumer slower than the graph gets every frame in order; the sequence ends at end-of-stream")
    func frameStream() async throws {
        let pictures = Self.pictures(count: 8)
        let stream = try FrameStream(format: .rgba, bufferSize: 2)
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: stream)
        let consumer = Task {
            var frames: [PixelBuffer] = []
            for try await frame in stream.frames {
                try await Task.sleep(for: .milliseconds(20))  // slower than the graph
                frames.append(frame)
            }
            return frames
        }
        try await pipeline.send(Self.images(pictures))
        try await pipeline.sendEndOfStream()
        let frames = try await consumer.value
        #expect(try await stream.finish() == pictures.count)
        #expect(frames.map(\.timestamp) == (0..<pictures.count).map(Self.time))
        #expect(zip(frames, pictures).allSatisfy { $0.data == $1 })
        #expect(stream.framesDropped == 0)
        #expect(await pipeline.finish().isEmpty)
    }

    @Test("FrameStream in I420: the planes the render thread's readback gives")
    func frameStreamPlanes() async throws {
        let pixels = try #require(Self.pictures(count: 1, width: 40, height: 24).first)
        let stream = try FrameStream(format: .i420, colorSpace: .bt601)
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: stream)
        let context = pipeline.context
        async let first = stream.frames.first { _ in true }
        try await pipeline.send(RGBAImage(width: 40, height: 24, pixels: pixels, timestamp: Self.time(2)))
        try await pipeline.sendEndOfStream()
        let frame = try #require(try await first)
        let reference = try await context.perform { context in
            var buffer = try PixelBuffer(format: .i420, width: 40, height: 24, colorSpace: .bt601)
            let source = try PixelBuffer(format: .rgba, width: 40, height: 24, data: pixels)
            try context.readPixels(of: try context.makeFrame(from: source), into: &buffer)
            return buffer
        }
        #expect(frame.format == .i420 && frame.data == reference.data)
        #expect(try await stream.finish() == 1)
    }

    @Test("FrameStream: a consumer that stops early does not stall the graph; close() with frames pending returns")
    func consumerStopsEarly() async throws {
        let pictures = Self.pictures(count: 10)
        let stream = try FrameStream(format: .rgba, bufferSize: 1)
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: stream)
        let context = pipeline.context
        let consumer = Task {
            var count = 0
            for try await _ in stream.frames {
                count += 1
                if count == 2 { break }
            }
            return count
        }
        try await pipeline.send(Self.images(pictures))
        #expect(try await consumer.value == 2)
        // Nobody listens: the rest go by unread, and finishing does not wait for a consumer.
        #expect(try await stream.finish() == pictures.count)

        let unread = try FrameStream(format: .rgba, bufferSize: 1)
        let second = RawDataInput()
        second --> unread
        for (number, pixels) in pictures.prefix(3).enumerated() {
            try await second.process(pixels, width: 24, height: 16, format: .rgba, timestamp: Self.time(number), on: context)
        }
        await unread.close()  // nobody ever iterated: close() drops what waits and joins the worker
        #expect(context.runningThreadNames.filter { $0.contains("frame-stream") }.isEmpty)
    }

    @Test("With .drop, a held consumer costs frames, never the render thread: the drops are counted")
    func dropPolicy() async throws {
        let pictures = Self.pictures(count: 12)
        let gate = Gate()
        let received = Collector<MediaTime>()
        let output = RawDataOutput(queueCapacity: 1, whenQueueFull: .drop) { image in
            if image.timestamp == Self.time(0) { gate.pass() }
            received.append(image.timestamp)
        }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        try await pipeline.send(Self.images(pictures))
        let dropped = output.framesDropped
        gate.open()
        let delivered = try await output.finish()
        #expect(dropped > 0, "a one-frame queue behind a held consumer drops")
        #expect(delivered + dropped == pictures.count, "delivered \(delivered), dropped \(dropped)")
        #expect(received.count == delivered)
    }
}

/// A user's writer: logs what it is asked, on which thread; throws at frame `failingAt`.
private final class RecordingWriter: FrameWriter, Sendable {
    let log = Locked<[String]>([])
    private let failingAt: Int?

    init(failingAt: Int?) {
        self.failingAt = failingAt
        log.withLock { $0.append("open \(Thread.current.name ?? "")") }
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        if number == failingAt { throw CheckFailure("the disk is full at frame \(number)") }
        log.withLock { $0.append("\(number) \(buffer.width)x\(buffer.height)") }
        return .more
    }

    func finish() throws { log.withLock { $0.append("finish") } }
    func publish() throws { log.withLock { $0.append("publish") } }
    func salvage(after error: ELImageError) { log.withLock { $0.append("salvage: \(error)") } }
}

private struct CheckFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
