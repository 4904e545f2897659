import ELImage
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
}
