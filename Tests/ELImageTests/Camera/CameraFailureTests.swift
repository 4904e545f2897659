import ELImage
@testable import ELImageCamera
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
        let camera = Camera(device: "/dev/video0", settings: testSettings(), context: context, io: EmulatedDeviceIO([device]))
        let sink = FrameCollector()
        camera --> sink
        try camera.start()
        #expect(await waitUntil { sink.count >= 5 })
        device.unplug()
        #expect(await waitUntil { sink.endOfStreamCount == 1 })
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
        // Frames delivered before the failure all came before the end-of-stream.
        let delivered = sink.count
        try await Task.sleep(for: .milliseconds(30))
        #expect(sink.count == delivered)
        await camera.finish()  // nothing left to stop: no second end-of-stream
        try await Task.sleep(for: .milliseconds(20))
        #expect(sink.endOfStreamCount == 1)
    }

    @Test("A stalled device (poll times out) is a fatal failure naming the timeout")
    func stall() async throws {
        let device = emulatedCamera(framesPerSecond: 200)
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(stallTimeout: .milliseconds(250)),
                            context: context, io: EmulatedDeviceIO([device]))
        let sink = FrameCollector()
        camera --> sink
        try camera.start()
        #expect(await waitUntil { sink.count >= 3 })
        let stalledAt = ContinuousClock.now
        device.isStalled = true
        #expect(await waitUntil { sink.endOfStreamCount == 1 })
        let waited = ContinuousClock.now - stalledAt
        #expect(waited >= .milliseconds(200), "\(waited)")  // not before the timeout
        let error = try #require(failures.errors.first)
        #expect(error.ioErrno == ETIMEDOUT)
        #expect("\(error)".contains("no frame for 0.25 s, the device stalled"))
        #expect(await waitUntil { !camera.isCapturing && device.counters.openDescriptors == 0 })
    }

    @Test("Opening fails: permission denied, busy, no such device; thrown, reported, end-of-stream sent",
          arguments: [EACCES, EBUSY, ENOENT])
    func openFailures(code: Int32) async throws {
        let device = emulatedCamera()
        let io = EmulatedDeviceIO([device])
        if code == ENOENT { io.remove(path: "/dev/video0") } else { device.openError = code }
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(), context: context, io: io)
        let sink = FrameCollector()
        camera --> sink
        let thrown = #expect(throws: ELImageError.self) { try camera.start() }
        #expect(thrown?.ioErrno == code)
        #expect(await waitUntil { sink.endOfStreamCount == 1 })
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
        let first = Camera(device: "/dev/video0", settings: testSettings(), context: context, io: io)
        let second = Camera(device: "/dev/video0", settings: testSettings(), context: context, io: io)
        try first.start()
        let thrown = #expect(throws: ELImageError.self) { try second.start() }
        #expect(thrown?.ioErrno == EBUSY)
        #expect(thrown.map { "\($0)" }?.contains("set format YUYV 64x48 (VIDIOC_S_FMT) on /dev/video0") == true)
        #expect(first.isRunning)
        await first.finish()
        #expect(await waitUntil { failures.errors.count == 1 })
        try second.start()  // free now
        await second.finish()
    }

    @Test("An unsupported format is an error naming the device and what it offers")
    func unsupportedFormat() async throws {
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(pixelFormat: "RGBP"), context: context,
                            io: EmulatedDeviceIO([emulatedCamera()]))
        let thrown = #expect(throws: ELImageError.self) { try camera.start() }
        #expect(thrown.map { "\($0)" } == "/dev/video0: pixel format RGBP is not offered. the device offers YUYV; pick one of those or leave pixelFormat nil")
        #expect(await waitUntil { failures.errors.count == 1 })
        let bayer = EmulatedVideoDevice(path: "/dev/video1", formats: [
            .init(fourCC: "BA81", sizes: [.init(width: 64, height: 48, framesPerSecond: [30])]),
        ])
        let other = Camera(device: "/dev/video1", settings: testSettings(), context: context, io: EmulatedDeviceIO([bayer]))
        #expect(throws: ELImageError.self) { try other.start() }
        #expect(bayer.counters.openDescriptors == 0)
    }

    @Test("A metadata node is refused with a hint to pick the other node; the report names the camera")
    func metadataNode() async throws {
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        do {  // the camera is gone before its report is delivered, as in a program that gives up on it
            let camera = Camera(device: "/dev/video1", context: context,
                                io: EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video1", kind: .metadata)]))
            let thrown = #expect(throws: ELImageError.self) { try camera.start() }
            #expect(thrown.map { "\($0)" }?.contains("is not a streaming video capture device") == true)
        }
        #expect(await waitUntil { !failures.all.isEmpty })
        #expect(failures.all.allSatisfy { $0.node.hasPrefix("Camera#") }, "\(failures.all.map(\.node))")
    }
}
