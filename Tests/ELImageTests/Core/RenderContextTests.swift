import CGLES
import ELImage
import ELImageTestSupport
import Foundation
import Testing

@Suite("RenderContext", .closesContexts)
struct RenderContextTests {
    @Test("Reports what the driver gave it")
    func info() throws {
        let context = try TestContexts.make()
        let info = context.info
        #expect(info.version.hasPrefix("OpenGL ES 3"))
        #expect(info.maximumTextureSize >= 2048)
        #expect(!info.renderer.isEmpty && info.renderer != "unknown")
        #expect(!info.extensions.isEmpty)
        #expect(info.description.contains(info.renderer))
    }

    @Test("Two contexts in one process work independently, at the same time")
    func twoContexts() async throws {
        let first = try TestContexts.make(), second = try TestContexts.make()
        let pixels = randomBytes(32 * 32 * 4, seed: 11)
        async let a: [RGBAImage] = run(on: first, pixels: pixels, frames: 20)
        async let b: [RGBAImage] = run(on: second, pixels: pixels, frames: 20)
        let (imagesA, imagesB) = try await (a, b)
        #expect(imagesA.count == 20 && imagesB.count == 20)
        #expect(imagesA.last?.pixels == imagesB.last?.pixels)
        // Each context has its own pool: neither saw the other's textures.
        #expect(await first.poolStatistics.hits + first.poolStatistics.misses == 40)
        #expect(await second.poolStatistics.hits + second.poolStatistics.misses == 40)
        // Each runs on its own thread.
        let threadA = try await first.perform { _ in pthread_self() }
        let threadB = try await second.perform { _ in pthread_self() }
        #expect(pthread_equal(threadA, threadB) == 0)
    }

    private func run(on context: RenderContext, pixels: [UInt8], frames: Int) async throws -> [RGBAImage] {
        let input = RawDataInput()
        let (output, images) = imageCollector()
        input --> Grayscale() --> output
        for frame in 0..<frames {
            try await input.process(pixels, width: 32, height: 32, format: .rgba,
                                    timestamp: MediaTime(frame: Int64(frame), framesPerSecond: 30), on: context)
        }
        return images.values
    }

    @Test("A shared context on another thread reads a texture the render thread drew, after a fence")
    func sharedContext() async throws {
        let context = try TestContexts.make()
        let pixels = [UInt8](repeating: 0, count: 16 * 16 * 4).enumerated().map { UInt8($0.offset % 251) }
        let input = RawDataInput()
        let frames = Collector<TextureFrame>()
        final class Keeper: ImageInput, @unchecked Sendable {
            let inputSlots = InputSlots()
            let frames: Collector<TextureFrame>
            init(_ frames: Collector<TextureFrame>) { self.frames = frames }
            func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
                frames.append(frame)
            }
        }
        input --> Keeper(frames)
        try await input.process(pixels, width: 16, height: 16, format: .rgba, timestamp: .zero, on: context)
        let frame = try #require(frames.values.first)
        let fence = try await context.perform { try $0.insertFence() }

        // A framework worker (`makeWorker`): its shared context is made current, released and
        // destroyed on it, and the thread is joined before the render context closes.
        let result = Locked<[UInt8]?>(nil)
        let worker = try context.makeWorker(name: "test reader") { failure in
            guard failure == nil, fence.wait() else { return }
            var framebuffer: GLuint = 0
            glGenFramebuffers(1, &framebuffer)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
            glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0),
                                   GLenum(GL_TEXTURE_2D), frame.texture, 0)
            var bytes = [UInt8](repeating: 0, count: 16 * 16 * 4)
            glReadPixels(0, 0, 16, 16, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
            glDeleteFramebuffers(1, &framebuffer)
            result.withLock { $0 = bytes }
        }
        try worker.start()
        await worker.join()
        let readBack = try #require(result.withLock { $0 }, "the worker could not make its context current, or the fence timed out")
        #expect(readBack == pixels)
    }

    @Test("Asking for a platform that is not there says what was tried and what to install",
          .enabled(if: !FileManager.default.fileExists(atPath: "/dev/dri"), "this machine has a render node (/dev/dri): GBM opens"))
    func missingPlatform() throws {
        #expect {
            _ = try RenderContext(platform: .gbm)
        } throws: { error in
            guard case let .noDisplay(tried, hint)? = error as? ELImageError else { return false }
            return tried.count == 1 && tried[0].hasPrefix("gbm:") && tried[0].contains("render node")
                && hint.contains("apt-get install")
        }
    }

    @Test("performAndWait runs on the render thread from plain threads")
    func performAndWait() throws {
        let context = try TestContexts.make()
        let size = try context.performAndWait { context in
            try context.makeFrame(width: 5, height: 3, timestamp: .zero).width
        }
        #expect(size == 5)
    }
}
