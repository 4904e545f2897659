import ELImage
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// A blend whose base (input 0) starts before its layer (input 1): the skipped frames are not
/// silent, and once the layer has a frame it is reused for every base frame.
@Suite("Blend: sources started in either order", .closesContexts)
struct BlendInputOrderTests {
    static func solid(_ rgba: [UInt8], time: Int) -> RGBAImage {
        RGBAImage(width: 4, height: 2, pixels: Array([[UInt8]](repeating: rgba, count: 8).joined()),
                  timestamp: MediaTime(frame: Int64(time), framesPerSecond: 25))
    }

    @Test("Base frames before the layer's first: reported once, naming the node and what to do; then the layer's last frame is reused")
    func baseBeforeLayer() async throws {
        let blend = BlendFilter(mode: .alpha)
        let pipeline = try EmbeddedPipeline { input in
            input.addTarget(blend)   // input 0: the base, started first
            return blend
        }
        let layer = RawDataInput()
        layer.addTarget(blend)       // input 1: the layer, whose first frame comes later
        // Every skipped frame is a `.dropped` event naming the blend, with the total so far.
        let events = pipeline.context.events
        let drops = Task {
            var totals: [Int] = []
            for await event in events {
                if case .dropped(let drop) = event, drop.node.refers(to: blend) { totals.append(drop.total) }
            }
            return totals
        }

        for time in 0..<3 { #expect(try await pipeline.send(Self.solid([200, 0, 0, 255], time: time)).isEmpty) }
        let failures = pipeline.failures.all
        #expect(failures.count == 1, "\(failures)")
        let text = failures.first.map { "\($0)" } ?? ""
        #expect(text.contains("BlendFilter#"), "\(text)")
        #expect(text.contains("frames arrive on input 0 while input 1 has no frame yet"), "\(text)")
        #expect(text.contains("start the source of input 1 first"), "\(text)")

        let top = Self.solid([0, 0, 255, 255], time: 0)
        try await layer.process(top.pixels, width: top.width, height: top.height, format: .rgba, timestamp: top.timestamp,
                                on: pipeline.context)
        var drawn: [RGBAImage] = []
        for time in 3..<6 { drawn += try await pipeline.send(Self.solid([200, 0, 0, 255], time: time)) }
        #expect(drawn.count == 3, "the layer's one frame serves every later base frame")
        #expect(drawn.allSatisfy { Array($0.pixels.prefix(4)) == [0, 0, 255, 255] })
        #expect(pipeline.failures.all.count == 1, "reported once")
        #expect(blend.pass.skippedFrames == 3, "the three base frames before the layer's first")
        // As a hop of a frame account: six base frames in, three blended, three dropped and why.
        let hop = try #require(blend.frameHops.first)
        #expect(hop.framesIn == 6 && hop.passedOn == 3 && hop.drops == [.init(3, "another input had no frame yet")], "\(hop)")
        var source = SourceStatistics()
        (source.produced, source.delivered) = (6, 6)
        let account = FrameAccount(hops: [FrameHop(source: source)] + blend.frameHops)
        #expect(account.addsUp && account.delivered == 3, "\(account)")
        #expect(account.description == "6 frames made: 3 delivered, 3 dropped (3 at the blend (alpha): another input had no frame yet)")
        // The blend keeps holding the layer's frame (for base frames still to come): not a leftover to check.
        let leftovers = await pipeline.finish()
        #expect(leftovers.threadsAfterClose.isEmpty, "\(leftovers)")
        #expect(await drops.value == [1, 2, 3], "one event a skipped frame")
    }
}
