import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

@Suite("Camera switching and restarting", .closesContexts)
struct CameraSwitchTests {
    /// The red level of a frame's centre pixel: which emulated camera it came from.
    func level(_ image: RGBAImage) -> Int { Int(image[image.width / 2, image.height / 2].x) }

    @Test("Switching devices and restarting while the graph runs: one stream (same node and threads, no end-of-stream, times go on, statistics add up)")
    func switchCameras() async throws {
        let front = emulatedCamera(path: "/dev/video0", framesPerSecond: 200, picture: solidPicture(width: 64, height: 48, [40, 40, 40]))
        let back = emulatedCamera(path: "/dev/video2", framesPerSecond: 200, picture: solidPicture(width: 64, height: 48, [210, 210, 210]))
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(),
                            io: EmulatedDeviceIO([front, back]))
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        let cameraThreads = { context.runningThreadNames.filter { $0.hasPrefix("ELImage.camera") } }
        #expect(cameraThreads() == ["ELImage.camera", "ELImage.camera delivery"])
        #expect(await sink.waitForFrames(5))
        try camera.switchDevice(to: "/dev/video2")
        #expect(camera.devicePath == "/dev/video2" && camera.isRunning)
        // The old device is released at once.
        #expect(front.counters.openDescriptors == 0 && front.counters.liveMappings == 0 && !front.isStreaming)
        let atSwitch = sink.count
        #expect(await sink.waitForFrames(atSwitch + 5))
        let producedBeforeRestart = camera.statistics.produced
        try camera.restart(with: testSettings())  // the same device, the same stream
        #expect(camera.isRunning && camera.statistics.produced >= producedBeforeRestart)
        let atRestart = sink.count
        #expect(await sink.waitForFrames(atRestart + 5))
        #expect(sink.endOfStreamCount == 0)
        try camera.switchDevice(to: "/dev/video0")
        let atSecondSwitch = sink.count
        #expect(await sink.waitForFrames(atSecondSwitch + 5))
        #expect(cameraThreads() == ["ELImage.camera", "ELImage.camera delivery"] && camera.isCapturing)
        await camera.finish()
        #expect(await waitUntil { sink.endOfStreamCount == 1 && camera.isDeliveryIdle && !camera.isCapturing })
        // Every frame taken from either device is counted, delivered or dropped, in one stream.
        let statistics = camera.statistics
        #expect(statistics.produced == front.counters.buffersDequeued + back.counters.buffersDequeued)
        #expect(statistics.produced == statistics.delivered + statistics.dropped)
        #expect(sink.count == statistics.delivered)
        #expect(front.counters.opens == 2 && back.counters.opens == 2)

        let levels = sink.received.map(level)
        #expect(levels.allSatisfy { abs($0 - 40) <= 2 || abs($0 - 210) <= 2 }, "\(levels)")
        // dark..., bright..., dark...: exactly two changes of camera.
        let changes = zip(levels, levels.dropFirst()).filter { abs($0 - $1) > 100 }.count
        #expect(changes == 2, "\(levels)")
        #expect(abs(levels[0] - 40) <= 2 && abs(levels[levels.count - 1] - 40) <= 2)
        let times = sink.received.map(\.timestamp)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "times must keep increasing through the switches")
        #expect(failures.all.isEmpty)
        #expect(back.counters.openDescriptors == 0 && back.counters.liveMappings == 0)
    }

    @Test("A switch to a device that cannot open leaves the current one streaming, and says why")
    func failedSwitch() async throws {
        let front = emulatedCamera(path: "/dev/video0", framesPerSecond: 200)
        let locked = emulatedCamera(path: "/dev/video2")
        locked.openError = EACCES
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(),
                            io: EmulatedDeviceIO([front, locked]))
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        #expect(await sink.waitForFrames(3))
        let thrown = #expect(throws: ELImageError.self) { try camera.switchDevice(to: "/dev/video2") }
        #expect(thrown?.ioErrno == EACCES)
        let said = thrown.map { "\($0)" } ?? ""
        #expect(said.contains("/dev/video2") && said.contains("add your user to the 'video' group"), "\(said)")
        #expect(camera.isRunning && camera.devicePath == "/dev/video0")
        let before = sink.count
        #expect(await sink.waitForFrames(before + 3))  // still streaming
        #expect(await failures.waitForFailures(1))
        #expect(sink.endOfStreamCount == 0)
        await camera.finish()
    }

    @Test("Restart with new settings: same stream, new mode, no end-of-stream")
    func restart() async throws {
        let device = EmulatedVideoDevice(path: "/dev/video0", formats: [
            .init(fourCC: .yuyv, sizes: [.init(width: 64, height: 48, framesPerSecond: [200]),
                                         .init(width: 32, height: 24, framesPerSecond: [200])]),
        ])
        let context = try TestContexts.make()
        let camera = Camera(emulating: device, settings: testSettings())
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        #expect(await sink.waitForFrames(3))
        try camera.restart(with: testSettings(width: 32, height: 24))
        #expect(camera.mode?.width == 32)
        #expect(await sink.waitForFrame { $0.width == 32 })
        await camera.finish()
        #expect(await sink.waitForEndOfStream())
        let widths = sink.received.map(\.width)
        #expect(widths.first == 64 && widths.last == 32)
        #expect(widths == widths.sorted(by: >))  // every 64 before every 32
        let times = sink.received.map(\.timestamp)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(device.counters.opens == 2 && device.counters.openDescriptors == 0)
    }

    @Test("Switching while stopped only records the device for the next start")
    func switchWhileStopped() async throws {
        let context = try TestContexts.make()
        let second = emulatedCamera(path: "/dev/video2", framesPerSecond: 30, pacing: .manual)
        let camera = Camera(device: "/dev/video0", settings: testSettings(framesPerSecond: 30),
                            io: EmulatedDeviceIO([emulatedCamera(path: "/dev/video0"), second]))
        try camera.switchDevice(to: "/dev/video2")
        #expect(!camera.isRunning && second.counters.opens == 0)
        try camera.start(on: context)
        #expect(second.isStreaming)
        await camera.finish()
    }
}
