import ELImage
import ELImageTestSupport
import Foundation
import Testing

@Suite("FramePool", .closesContexts)
struct FramePoolTests {
    @Test("1,000 frames reuse the pipeline's working set of textures; memory stays flat")
    func reuseOverManyFrames() async throws {
        let context = try TestContexts.make()
        // Reuse, not trimming, is under test: a stall on a loaded machine must not age textures out.
        try await context.perform { $0.framePool.idleLifetime = .seconds(3600) }
        let input = RawDataInput()
        let (output, images) = imageCollector()
        input --> Grayscale() --> Passthrough(outputSize: (32, 24)) --> output  // a scale: it draws
        let pixels = randomBytes(64 * 48 * 4, seed: 3)
        var heldAfterWarmUp = 0
        for frame in 0..<1000 {
            try await input.process(pixels, width: 64, height: 48, format: .rgba,
                                    timestamp: MediaTime(frame: Int64(frame), framesPerSecond: 30), on: context)
            if frame == 9 { heldAfterWarmUp = await context.poolStatistics.bytesHeld }
        }
        let statistics = await context.poolStatistics
        #expect(images.count == 1000)
        // The working set: the uploaded frame, Grayscale's output and the scaled output.
        #expect(statistics.misses <= 3, "\(statistics)")
        #expect(statistics.hits >= 3 * 1000 - 3)
        #expect(statistics.bytesHeld == heldAfterWarmUp)
        #expect(statistics.bytesHeld <= 3 * 64 * 48 * 4)
        #expect(statistics.texturesInUse == 0)
    }

    @Test("Textures are reused only for an equal key (size and format)")
    func keyedReuse() async throws {
        let context = try TestContexts.make()
        try await context.perform { context in
            let first = try context.makeFrame(width: 10, height: 10, timestamp: .zero)
            let texture = first.texture
            _ = consume first
            let other = try context.makeFrame(width: 10, height: 10, format: .r8, timestamp: .zero)
            let again = try context.makeFrame(width: 10, height: 10, timestamp: .zero)
            #expect(other.texture != texture)
            #expect(again.texture == texture)
            #expect(context.framePool.statistics.misses == 2)
            #expect(context.framePool.statistics.hits == 1)
        }
    }

    @Test("Frames released on another thread go back to the pool on the render thread")
    func releaseOffThread() async throws {
        let context = try TestContexts.make()
        let releasedOn = try await Task.detached {
            let frame = try await context.perform { try $0.makeFrame(width: 32, height: 32, timestamp: .zero) }
            #expect(frame.width == 32)
            return pthread_self()  // the last reference to `frame` goes here, off the render thread
        }.value
        #expect(pthread_equal(releasedOn, try await context.perform { _ in pthread_self() }) == 0)
        let pool = await context.poolStatistics
        #expect(pool.texturesInUse == 0)
        #expect(pool.idleTextures == 1)
    }

    @Test("Idle textures are trimmed")
    func trimming() async throws {
        let context = try TestContexts.make()
        try await context.perform { context in
            context.framePool.idleLifetime = .zero
            for size in 1...5 { _ = try context.makeFrame(width: size * 8, height: 8, timestamp: .zero) }
            #expect(context.framePool.statistics.idleTextures == 5)
            context.framePool.trim()
            #expect(context.framePool.statistics.idleTextures == 0)
            #expect(context.framePool.statistics.idleBytes == 0)
            #expect(context.framePool.statistics.trimmed == 5)
            context.framePool.maximumIdleBytes = 8 * 8 * 4
            for _ in 0..<2 { _ = try context.makeFrame(width: 8, height: 8, timestamp: .zero) }
            let a = try context.makeFrame(width: 8, height: 8, timestamp: .zero)
            let b = try context.makeFrame(width: 8, height: 8, timestamp: .zero)
            _ = (consume a, consume b)
            #expect(context.framePool.statistics.idleBytes <= 8 * 8 * 4)
        }
    }
}
