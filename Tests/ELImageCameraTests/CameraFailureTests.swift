import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

@Suite("Camera failures", .closesContexts)
struct CameraFailureTests {
    @Test("Unplugged mid-stream: ENODEV reaches the error handler, the sink gets end-of-stream, the thread exits")
    func unplug() async throws {
        let device = emulatedCamera(framesPerSecond: 200)
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(emulating: device, settings: testSettings())
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        #expect(await sink.waitForFrames(5))
        device.unplug()
        #expect(await sink.waitForEndOfStream())
        #expect(await waitUntil { !camera.isCapturing })
        #expect(!camera.isRunning)
        let error = try #require(failures.errors.first)
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.node.hasPrefix("Camera#") == true)
        #expect(error.ioFile == "/dev/video0")
        #expect(error.ioErrno == ENODEV)
        let message = "\(error)"
        #expect(message.contains("/dev/video0") && message.contains("ENODEV") && message.contains("unplugged"), "\(message)")
        // Everything was given back: mappings and the descriptor.
        #expect(device.counters.liveMappings == 0 && device.counters.openDescriptors == 0)
        // Frames delivered before the failure all came before the end-of-stream, and a stop has
        // nothing left to stop: once the camera's threads are joined, nothing more came.
        let delivered = sink.count
        await camera.finish()
        await camera.close()
        #expect(sink.count == delivered)
        #expect(sink.endOfStreamCount == 1)
    }

    @Test("A device that sends nothing for the stall timeout (on the context's clock) is a fatal failure naming the timeout; not a moment before",
          arguments: [100, 3600])
    func stall(timeout: Int) async throws {
        let device = emulatedCamera(framesPerSecond: 200, pacing: .manual)
        let clock = ManualClock()
        let context = try TestContexts.make(clock: clock)
        let failures = FailureRecorder(context)
        // Minutes on the context's clock: a real one would not get there during the test.
        let camera = Camera(device: "/dev/video0", settings: testSettings(stallTimeout: .seconds(timeout)), io: EmulatedDeviceIO([device]))
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        for frame in 1...3 {
            device.emitFrames()
            #expect(await sink.waitForFrames(frame))
        }
        // No frame comes any more. A millisecond short of the timeout on the clock: not a stall
        // yet, however long the camera looks (two more polls: it read the clock after the advance).
        clock.advance(by: .seconds(timeout) - .milliseconds(1))
        let polls = device.counters.polls
        #expect(await device.waitForCounters { $0.polls >= polls + 2 })
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(sink.endOfStreamCount == 0)
        // The timeout: the stall.
        clock.advance(by: .milliseconds(1))
        #expect(await sink.waitForEndOfStream())
        let error = try #require(failures.errors.first)
        #expect(error.ioErrno == ETIMEDOUT)
        #expect("\(error)".contains("no frame for \(timeout) s, the device stalled"), "\(error)")
        #expect(await waitUntil { !camera.isCapturing && device.counters.openDescriptors == 0 })
        #expect(sink.count == 3)
    }

    @Test("Opening fails: permission denied, busy, no such device; thrown, reported, end-of-stream sent",
          arguments: [EACCES, EBUSY, ENOENT])
    func openFailures(code: Int32) async throws {
        let device = emulatedCamera()
        let io = EmulatedDeviceIO([device])
        if code == ENOENT { io.remove(path: "/dev/video0") } else { device.openError = code }
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(), io: io)
        let sink = FrameCollector()
        camera --> sink
        let thrown = #expect(throws: ELImageError.self) { try camera.start(on: context) }
        #expect(thrown?.ioErrno == code)
        #expect(await sink.waitForEndOfStream())
        #expect(failures.errors == [thrown].compactMap { $0 })
        #expect(!camera.isRunning)
        let message = thrown.map { "\($0)" } ?? ""
        #expect(message.hasPrefix("cannot open /dev/video0: "))
        switch code {
        case EACCES: #expect(message.contains("add your user to the 'video' group"))
        case EBUSY: #expect(message.contains("another program is using it"))
        default: #expect(message.contains("no such device"))
        }
    }

    @Test("A device streaming for another camera is busy (EBUSY when setting the format)")
    func busyDevice() async throws {
        let device = emulatedCamera(framesPerSecond: 100)
        let io = EmulatedDeviceIO([device])
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let first = Camera(device: "/dev/video0", settings: testSettings(), io: io)
        let second = Camera(device: "/dev/video0", settings: testSettings(), io: io)
        try first.start(on: context)
        let thrown = #expect(throws: ELImageError.self) { try second.start(on: context) }
        #expect(thrown?.ioErrno == EBUSY)
        #expect(thrown.map { "\($0)" }?.contains("set format YUYV 64x48 (VIDIOC_S_FMT) on /dev/video0") == true)
        #expect(first.isRunning)
        await first.finish()
        #expect(await failures.waitForFailures(1))
        try second.start(on: context)  // free now
        await second.finish()
    }

    @Test("An unsupported format is an error naming the device and what it offers")
    func unsupportedFormat() async throws {
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(pixelFormat: "RGBP"),
                            io: EmulatedDeviceIO([emulatedCamera()]))
        let thrown = #expect(throws: ELImageError.self) { try camera.start(on: context) }
        #expect(thrown.map { "\($0)" } == "/dev/video0: pixel format RGBP is not offered. the device offers YUYV; pick one of those or leave pixelFormat nil")
        #expect(await failures.waitForFailures(1))
        let bayer = EmulatedVideoDevice(path: "/dev/video1", formats: [
            .init(fourCC: "BA81", sizes: [.init(width: 64, height: 48, framesPerSecond: [30])]),
        ])
        let other = Camera(device: "/dev/video1", settings: testSettings(), io: EmulatedDeviceIO([bayer]))
        #expect(throws: ELImageError.self) { try other.start(on: context) }
        #expect(bayer.counters.openDescriptors == 0)
    }

    @Test("A metadata node is refused with a hint to pick the other node; the report names the camera")
    func metadataNode() async throws {
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        do {  // the camera is gone before its report is delivered, as in a program that gives up on it
            let camera = Camera(device: "/dev/video1",
                                io: EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video1", kind: .metadata)]))
            let thrown = #expect(throws: ELImageError.self) { try camera.start(on: context) }
            #expect(thrown.map { "\($0)" }?.contains("is not a streaming video capture device") == true)
        }
        #expect(await failures.waitForFailures(1))
        #expect(failures.all.allSatisfy { $0.node.hasPrefix("Camera#") }, "\(failures.all.map(\.node))")
    }
}
