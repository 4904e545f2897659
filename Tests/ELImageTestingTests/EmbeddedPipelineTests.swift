import ELImage
import ELImageTestSupport
import ELImageTesting
import Testing

/// A node that keeps the last frame it received: a leak `EmbeddedPipeline.finish()` must report.
private final class FrameKeeper: ImageInput, Sendable {
    let inputSlots = InputSlots()
    private let kept = Locked<TextureFrame?>(nil)
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        kept.withLock { $0 = frame }
    }
}

@Suite("EmbeddedPipeline")
struct EmbeddedPipelineTests {
    /// A 3x2 image with a different colour in each pixel.
    private let image = RGBAImage(width: 3, height: 2, pixels: [
        255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255,
        10, 20, 30, 40, 200, 100, 50, 255, 0, 0, 0, 255,
    ], timestamp: MediaTime(value: 3, timescale: 30))

    @Test("frames out for each frame in, with the time kept; nothing left over at finish")
    func grayscale() async throws {
        let pipeline = try EmbeddedPipeline { input in input --> Grayscale() }
        let out = try await pipeline.send(image)
        let leftovers = await pipeline.finish()

        let frame = try #require(out.first)
        #expect(out.count == 1)
        #expect(frame.timestamp == image.timestamp)
        for y in 0..<2 {
            for x in 0..<3 {
                let pixel = image[x, y]
                // BT.709 luma, computed here.
                let luma = (0.2126 * Double(pixel.x) + 0.7152 * Double(pixel.y) + 0.0722 * Double(pixel.z)).rounded()
                #expect(abs(Double(frame[x, y].x) - luma) <= 1, "pixel \(x),\(y): \(frame[x, y]) for luma \(luma)")
                #expect(frame[x, y].w == pixel.w)
            }
        }
        #expect(pipeline.output.endOfStreamCount == 1)
        #expect(leftovers.isEmpty, "\(leftovers)")
        #expect(pipeline.context.isClosed)
    }

    @Test("a node that keeps a frame past the end of the stream is reported")
    func keptFrameIsReported() async throws {
        let keeper = FrameKeeper()
        let pipeline = try EmbeddedPipeline { input in
            input --> keeper
            return input
        }
        try await pipeline.send(image)
        try await pipeline.send(image)
        let leftovers = await pipeline.finish()
        #expect(pipeline.output.count == 2)
        #expect(leftovers.framesInUse == 1)
        #expect(!leftovers.isEmpty)
        #expect(leftovers.threadsAfterClose.isEmpty)
    }

    @Test("a sink under test ends the graph: it gets every frame with its time, the collector none")
    func sinkUnderTest() async throws {
        let received = Locked<[MediaTime]>([])
        let sink = RawDataOutput { image in received.withLock { $0.append(image.timestamp) } }
        let pipeline = try EmbeddedPipeline(sink: sink) { $0 --> Grayscale() }
        let times = (0..<3).map { MediaTime(frame: Int64($0), framesPerSecond: 30) }
        let out = try await pipeline.send(times.map { RGBAImage(width: 3, height: 2, pixels: image.pixels, timestamp: $0) })
        #expect(out.isEmpty && pipeline.output.count == 0)
        #expect(try await sink.finish() == 3)
        #expect(received.withLock { $0 } == times)
        let leftovers = await pipeline.finish()
        #expect(leftovers.failures.isEmpty && leftovers.threadsAfterClose.isEmpty, "\(leftovers)")
    }

    @Test("frames read back as Y'CbCr: flat gray 200 is Y' 188 (BT.709 limited range: 16 + 219 × 200/255), Cb Cr 128")
    func yuvReadback() async throws {
        let pipeline = try EmbeddedPipeline(readingBackAs: .i420, colorSpace: .bt709)
        let gray = try PixelBuffer(format: .rgba, width: 4, height: 2, data: [UInt8](repeating: 200, count: 4 * 2 * 4),
                                   timestamp: MediaTime(value: 5, timescale: 25))
        let out = try #require(try await pipeline.send(gray).first)
        #expect(out.format == .i420 && out.timestamp == gray.timestamp && out.colorSpace == .bt709)
        #expect(out.data.prefix(8).allSatisfy { abs(Int($0) - 188) <= 1 }, "\(Array(out.data.prefix(8)))")
        #expect(out.data.dropFirst(8).allSatisfy { abs(Int($0) - 128) <= 1 }, "\(Array(out.data.dropFirst(8)))")
        #expect(try await pipeline.send(image).isEmpty, "RGBA results only for an RGBA readback")
        #expect(await pipeline.finish().isEmpty)
    }

    @Test("end-of-stream is sent once: by sendEndOfStream, or by finish when no one sent it")
    func endOfStreamOnce() async throws {
        let pipeline = try EmbeddedPipeline { $0 --> Grayscale() }
        try await pipeline.send(image)
        #expect(try await pipeline.sendEndOfStream().isEmpty)
        #expect(pipeline.output.endOfStreamCount == 1)
        #expect(await pipeline.finish().isEmpty)
        #expect(pipeline.output.endOfStreamCount == 1)
    }

    @Test("a failing node's error is collected, not printed, and counts as left over; render says no frame came")
    func failuresAreCollected() async throws {
        let pipeline = try EmbeddedPipeline { $0 --> FailingNode() }
        await #expect(throws: ELImageError.self) { try await pipeline.render(image) }
        #expect(pipeline.failures.all.count == 1)
        #expect(pipeline.failures.errors.first.map { "\($0)" }?.contains("refused on purpose") == true)
        let leftovers = await pipeline.finish()
        #expect(leftovers.failures.count == 1 && !leftovers.isEmpty)
    }

    @Test("the context reads the pipeline's clock")
    func clock() async throws {
        let clock = ManualClock()
        let pipeline = try EmbeddedPipeline(clock: clock)
        clock.advance(by: .seconds(3))
        #expect(pipeline.context.clock.now == clock.start + .seconds(3))
        #expect(await pipeline.finish().isEmpty)
    }
}

/// A filter that refuses every frame.
private final class FailingNode: ImageOutput, ImageInput, Sendable {
    let inputSlots = InputSlots()
    let outputs = OutputTargets()
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        throw ELImageError.invalidState(node: "FailingNode", reason: "refused on purpose")
    }
}
