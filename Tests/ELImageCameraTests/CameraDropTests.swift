import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

@Suite("Camera drops with a slow consumer", .closesContexts)
struct CameraDropTests {
    @Test("While the graph is busy, newer frames replace the waiting one; the newest is delivered, drops are counted")
    func newestWins() async throws {
        let device = emulatedCamera(framesPerSecond: 30, pacing: .manual)
        device.marksFrames = true
        let context = try TestContexts.make()
        let camera = Camera(emulating: device, settings: testSettings(framesPerSecond: 30))
        let sink = FrameCollector()
        sink.hold(frameIndex: 0)
        camera --> sink
        try camera.start(on: context)
        device.emitFrames()
        #expect(await sink.waitUntilHolding())  // frame 0 is in the graph, which is now stuck
        for frame in 1...5 {
            device.emitFrames()
            // The producer thread takes each frame although the render thread is busy.
            #expect(await waitUntil { camera.statistics.produced == frame + 1 })
        }
        #expect(camera.statistics.dropped == 4)  // frames 1...4 were replaced by their successor
        #expect(device.counters.framesLostByDriver == 0)
        sink.release()
        #expect(await sink.waitForFrames(2))
        await camera.finish()
        #expect(await sink.waitForEndOfStream())
        let images = sink.received
        #expect(images.map(EmulatedVideoDevice.frameNumber(in:)) == [0, 5])
        #expect(images.map(\.timestamp) == [.zero, MediaTime(microseconds: 5 * 33333)])
        let statistics = camera.statistics
        #expect((statistics.produced, statistics.delivered, statistics.dropped) == (6, 2, 4))
    }

    @Test("A consumer slower than the camera at full rate: capture keeps pace, drops are counted, deliveries stay in order")
    func realTimeSlowConsumer() async throws {
        // 128 pixels wide: room for 16 bits of frame number.
        let device = emulatedCamera(width: 128, framesPerSecond: 100)
        device.marksFrames = true
        let context = try TestContexts.make()
        let camera = Camera(emulating: device, settings: testSettings(width: 128, framesPerSecond: 100))
        let sink = FrameCollector()
        let slow = SlowNode(delay: .milliseconds(40))
        camera --> slow
        camera --> sink
        try camera.start(on: context)
        #expect(await waitUntil { camera.statistics.produced >= 60 })
        await camera.finish()
        #expect(await waitUntil { sink.endOfStreamCount == 1 && camera.isDeliveryIdle })
        let statistics = camera.statistics
        #expect(statistics.dropped > statistics.delivered)  // 10 ms frames, 40 ms per delivery
        #expect(statistics.produced == statistics.delivered + statistics.dropped)
        let numbers = sink.received.map(EmulatedVideoDevice.frameNumber(in:))
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "\(numbers)")
        #expect(numbers.count >= 2 && numbers.count == statistics.delivered)
    }
}

/// A node that takes `delay` on the render thread for every frame.
final class SlowNode: ImageInput, @unchecked Sendable {
    let inputSlots = InputSlots()
    let delay: Duration
    init(delay: Duration) { self.delay = delay }
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
    }
}
