import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

@Suite("Camera streaming", .closesContexts)
struct CameraStreamingTests {
    @Test("Buffers cycle: every buffer is used and requeued, nothing leaks over many frames")
    func bufferCycling() async throws {
        let device = emulatedCamera(framesPerSecond: 500)
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(emulating: device, settings: testSettings(framesPerSecond: 500))
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        #expect(await waitUntil { camera.statistics.produced >= 120 })
        await camera.finish()
        #expect(await waitUntil { sink.endOfStreamCount == 1 && camera.isDeliveryIdle })

        let counters = device.counters
        let statistics = camera.statistics
        #expect(counters.buffersUsed == [0, 1, 2, 3])
        // Each dequeued buffer went back at once: 4 queued at the start, then one per dequeue.
        #expect(counters.buffersQueued == 4 + counters.buffersDequeued)
        // At most the frame being copied and, while draining, the next one: never the whole queue.
        #expect(counters.mostBuffersHeld <= 2)
        #expect(counters.maps == 4 && counters.unmaps == 4 && counters.liveMappings == 0)
        #expect(counters.liveBuffers == 0)
        #expect(counters.opens == 1 && counters.openDescriptors == 0)
        #expect(counters.streamOns == 1 && counters.streamOffs == 1)
        #expect(statistics.produced == counters.buffersDequeued)
        #expect(statistics.produced == statistics.delivered + statistics.dropped)
        #expect(sink.count == statistics.delivered)
        #expect(!camera.isCapturing)
        #expect(failures.all.isEmpty)
        // Frames the driver lost for want of a free buffer show up as sequence gaps, and the
        // average interval (from the buffer timestamps, 2 ms apart) spans them.
        #expect(statistics.skippedByDriver <= counters.framesLostByDriver)
        let average = try #require(statistics.averageInterval)
        let spanned = Double(statistics.produced - 1 + statistics.skippedByDriver) / Double(statistics.produced - 1)
        #expect(abs(average - 0.002 * spanned) < 1e-7, "average interval \(average), \(statistics)")
    }

    @Test("Frame times come from the buffer timestamps: relative to the first frame, exact, increasing; captureMicroseconds(of:) gives each frame's buffer time back")
    func timestamps() async throws {
        let device = emulatedCamera(framesPerSecond: 30, pacing: .manual)
        device.marksFrames = true
        let context = try TestContexts.make()
        let camera = Camera(emulating: device, settings: testSettings(framesPerSecond: 30))
        let sink = FrameCollector()
        camera --> sink
        #expect(camera.captureMicroseconds(of: .zero) == nil)  // before the first frame
        try camera.start(on: context)
        for frame in 1...6 {
            device.emitFrames()
            #expect(await sink.waitForFrames(frame))
        }
        // When each frame was captured: the monotonic time its buffer carried.
        for (number, image) in sink.received.enumerated() {
            let captured = try #require(device.captureMicroseconds(ofFrame: number))
            #expect(camera.captureMicroseconds(of: image.timestamp) == captured)
        }
        await camera.finish()
        let images = sink.received
        // The emulated driver stamps frame n at start + n × 33333 µs: exactly what arrives.
        #expect(images.map(\.timestamp) == (0..<6).map { MediaTime(microseconds: Int64($0) * 33333) })
        #expect(images.map(EmulatedVideoDevice.frameNumber(in:)) == Array(0..<6))
        #expect(camera.statistics.averageInterval == 0.033333)
    }

    @Test("Monotonic-clock mode keeps the buffers' CLOCK_MONOTONIC times")
    func absoluteTimestamps() async throws {
        let device = emulatedCamera(framesPerSecond: 30, pacing: .manual)
        let context = try TestContexts.make()
        var settings = testSettings(framesPerSecond: 30)
        settings.timestamps = .monotonicClock
        let camera = Camera(emulating: device, settings: settings)
        let sink = FrameCollector()
        camera --> sink
        let before = EmulatedVideoDevice.monotonicMicroseconds()
        try camera.start(on: context)
        device.emitFrames()
        #expect(await sink.waitForFrames(1))
        device.emitFrames()
        #expect(await sink.waitForFrames(2))
        await camera.finish()
        let times = sink.received.map { $0.timestamp.converted(to: 1_000_000).value }
        #expect(times.count == 2)
        #expect(times.first.map { $0 >= before && $0 <= EmulatedVideoDevice.monotonicMicroseconds() } == true)
        #expect(times.count == 2 && times[1] - times[0] == 33333)
        #expect(sink.received.map { camera.captureMicroseconds(of: $0.timestamp) } == times.map { $0 })
    }

    @Test("EAGAIN after a spurious wakeup is not an error; damaged frames are counted, not delivered")
    func eagainAndDamagedFrames() async throws {
        let device = emulatedCamera(framesPerSecond: 30, pacing: .manual)
        device.marksFrames = true
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(emulating: device, settings: testSettings(framesPerSecond: 30))
        let sink = FrameCollector()
        camera --> sink
        device.addSpuriousWakeups(25)
        try camera.start(on: context)
        // The 25 spurious wakeups are the first 25 polls: each says ready, DQBUF then says EAGAIN.
        #expect(await device.waitForCounters { $0.polls >= 25 })
        #expect(device.counters.buffersDequeued == 0 && camera.isRunning)
        device.emitFrames()
        #expect(await sink.waitForFrames(1))
        device.corruptNextFrame()
        device.emitFrames()
        #expect(await waitUntil { camera.statistics.damaged == 1 })
        device.emitFrames()
        #expect(await sink.waitForFrames(2))
        await camera.finish()
        #expect(sink.received.map(EmulatedVideoDevice.frameNumber(in:)) == [0, 2])
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(camera.statistics.produced == 2 && camera.statistics.damaged == 1)
        #expect(sink.endOfStreamCount <= 1)
    }

    @Test("Stop, start again: a new stream with fresh statistics and times from zero")
    func stopAndStart() async throws {
        let device = emulatedCamera(framesPerSecond: 30, pacing: .manual)
        let context = try TestContexts.make()
        let camera = Camera(emulating: device, settings: testSettings(framesPerSecond: 30))
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        try camera.start(on: context)  // already running: nothing happens
        device.emitFrames()
        #expect(await sink.waitForFrames(1))
        device.emitFrames()
        #expect(await sink.waitForFrames(2))
        await camera.finish()
        await camera.finish()
        #expect(await sink.waitForEndOfStream())
        #expect(!camera.isRunning)
        try camera.start(on: context)
        #expect(camera.statistics.produced == 0)
        device.emitFrames()
        #expect(await sink.waitForFrames(3))
        await camera.finish()
        #expect(await sink.waitForEndOfStream(2))
        #expect(sink.received.map(\.timestamp) == [.zero, MediaTime(microseconds: 33333), .zero])
        #expect(device.counters.opens == 2 && device.counters.openDescriptors == 0)
    }

    @Test("The graph is built before any context; the first start binds the camera to its context, for good")
    func bindsAtFirstStart() async throws {
        let device = emulatedCamera(framesPerSecond: 30, pacing: .manual)
        let camera = Camera(emulating: device, settings: testSettings(framesPerSecond: 30))
        let sink = FrameCollector()
        camera --> Grayscale() --> sink
        #expect(camera.context == nil)
        #expect(device.counters.opens == 0)  // nothing is opened before the start

        let context = try TestContexts.make()
        let other = try TestContexts.make()
        let events = context.events
        try camera.start(on: context)
        #expect(camera.context === context)
        device.emitFrames()
        #expect(await sink.waitForFrames(1))

        // Another context is refused, running or not, and the stream goes on untouched.
        let refused = #expect(throws: ELImageError.self) { try camera.start(on: other) }
        #expect(refused.map { "\($0)" }?.contains("started on another render context") == true, "\(String(describing: refused))")
        await camera.finish()
        #expect(await events.end(of: camera) != nil)
        #expect(throws: ELImageError.self) { try camera.start(on: other) }
        await other.close()  // the refused context never held the camera: its close leaves it be

        // The context it is bound to starts it again, and its close() closes it.
        try camera.start(on: context)
        device.emitFrames()
        #expect(await sink.waitForFrames(2))
        await context.close()
        #expect(!camera.isRunning)
        #expect(sink.endOfStreamCount == 2)
        let closed = #expect(throws: ELImageError.self) { try camera.start(on: context) }
        #expect(closed.map { "\($0)" }?.contains("used after close()") == true, "\(String(describing: closed))")
        #expect(device.counters.opens == 2 && device.counters.openDescriptors == 0)
    }

    @Test("A running camera that goes away stops capturing and gives its device back")
    func droppedWhileRunning() async throws {
        let device = emulatedCamera(framesPerSecond: 200)
        let context = try TestContexts.make()
        let sink = FrameCollector()
        do {
            let camera = Camera(emulating: device, settings: testSettings())
            camera --> sink
            try camera.start(on: context)
            #expect(await sink.waitForFrames(3))
        }
        #expect(await device.waitForCounters { $0.openDescriptors == 0 && $0.liveMappings == 0 })
        #expect(!device.isStreaming)
        // At most the frame that was being delivered came after: once the context has joined the
        // camera's threads, nothing more can.
        let count = sink.count
        await context.close()
        #expect(sink.count <= count + 1)
    }
}
