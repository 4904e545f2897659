import CV4L2
import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// `VirtualCamera` against an emulated v4l2loopback device: what consumers read, decoded by
/// ffmpeg and compared with the source; the driver's answers used as they are; consumers coming
/// and going; the device reconfigured, stalled, unplugged; nothing left open or mapped.
@Suite("Virtual camera", .closesContexts)
struct VirtualCameraTests {
    /// The astronaut photo at `width` x `height`, RGBA.
    static func photo(width: Int, height: Int) throws -> [UInt8] {
        [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", Repository.path("Examples/Media/astronaut.png"),
                                       "-vf", "scale=\(width):\(height),format=rgba", "-f", "rawvideo", "-"]))
    }

    /// A frame as a consumer read it, converted to RGB24 by ffmpeg (BT.601 limited range, what
    /// consumers assume for a webcam; `SwscaleReference`'s accurate conversion).
    static func decoded(_ frame: EmulatedLoopbackDevice.Frame, in folder: TemporaryFolder) throws -> [UInt8] {
        let names: [FourCC: String] = [.yuyv: "yuyv422", .uyvy: "uyvy422", .yu12: "yuv420p", .nv12: "nv12", .yv12: "yuv420p"]
        let packed = try #require(frame.tightlyPacked)
        let path = folder.path("frame-\(frame.sequence).yuv")
        var bytes = packed
        if frame.fourCC == .yv12 {  // ffmpeg has no YV12 name: swap the chroma planes into I420
            let luma = frame.width * frame.height, quarter = luma / 4
            bytes = Array(packed[0..<luma] + packed[(luma + quarter)..<(luma + 2 * quarter)] + packed[luma..<(luma + quarter)])
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try SwscaleReference.rgb(fromRaw: path, pixelFormat: try #require(names[frame.fourCC]), width: frame.width,
                                      height: frame.height, colorSpace: .bt601)
    }

    /// `rgba` (width x height) scaled to `size` by ffmpeg's bilinear filter, as RGB24: what the
    /// sink's one bilinear blit should give.
    static func scaledRGB(_ rgba: [UInt8], width: Int, height: Int, to size: (Int, Int), in folder: TemporaryFolder) throws -> [UInt8] {
        let path = folder.path("source-\(width)x\(height).rgba")
        try Data(rgba).write(to: URL(fileURLWithPath: path))
        return [UInt8](try runTool("ffmpeg", [
            "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "\(width)x\(height)", "-i", path,
            "-vf", "scale=\(size.0):\(size.1):flags=bilinear", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
    }

    /// Sends `count` copies of `rgba` and waits until the sink has handled each (written or dropped).
    static func send(_ rgba: [UInt8], width: Int, height: Int, count: Int, from input: RawDataInput, to camera: VirtualCamera,
                     on context: RenderContext) async throws {
        for _ in 0..<count {
            let before = camera.statistics
            try await input.process(rgba, width: width, height: height, format: .rgba, timestamp: .zero, on: context)
            let handled = await waitUntil(timeout: .seconds(30)) {
                let now = camera.statistics
                return now.framesWritten + now.framesDropped > before.framesWritten + before.framesDropped
            }
            try #require(handled, "the virtual camera did not handle a frame within 30 s")
        }
    }

    @Test("Each format the driver takes: a consumer reads the source's picture (≥ 40 dB through 4:2:2, 36 through 4:2:0, after ffmpeg decodes it), rows padded as the driver says",
          arguments: [FourCC.yuyv, .uyvy, .yu12, .nv12, .yv12])
    func formats(fourCC: FourCC) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (width, height) = (322, 240)  // rows of 322 pixels, padded to 64 bytes by the driver
        let loopback = EmulatedLoopbackDevice(configuration: .init(rowAlignment: 64))
        let io = EmulatedDeviceIO([], loopbacks: [loopback])
        let consumer = loopback.attachConsumer()
        let virtual = try VirtualCamera(device: loopback.path, settings: VirtualCameraSettings(formats: [fourCC]), io: io)
        #expect(virtual.warnings.isEmpty)
        #expect(loopback.capabilities.contains(.videoOutput) && !loopback.capabilities.contains(.videoCapture))
        let context = try TestContexts.make()
        let input = RawDataInput()
        input --> virtual
        let photo = try Self.photo(width: width, height: height)
        try await Self.send(photo, width: width, height: height, count: 3, from: input, to: virtual, on: context)
        // While the writer streams, the exclusive-caps device shows as a camera.
        #expect(loopback.capabilities.contains(.videoCapture) && !loopback.capabilities.contains(.videoOutput))
        #expect(try await virtual.finish() == 3)
        let statistics = virtual.statistics
        #expect(statistics.mode?.fourCC == fourCC && statistics.mode?.width == width && statistics.mode?.height == height)
        #expect(statistics.framesDropped == 0)
        let frames = consumer.frames
        try #require(frames.count == 3)
        let frame = frames[2]
        #expect(frame.fourCC == fourCC && frame.width == width && frame.height == height)
        #expect(frame.bytesPerLine % 64 == 0 && frame.bytesPerLine > fourCC.pixelFormat!.planeShape(0, width: width, height: height).rowBytes)
        let psnr = EncoderFixtures.psnr(try Self.decoded(frame, in: folder), StillsReference.rgb(ofRGBA: photo))
        // Floors between what the right conversion measures on this photo (41.6 dB through 4:2:2, 37.6
        // through 4:2:0) and the nearest plausible bugs (a swapped BT.601/709 matrix about 34 dB, a
        // one-sample chroma shift about 33).
        let floor: Double = fourCC == .yuyv || fourCC == .uyvy ? 40 : 36
        #expect(psnr >= floor, "\(fourCC): \(psnr) dB")
        // Closed behind it: the stream stopped, nothing mapped, no descriptor open; a camera no more.
        let counters = loopback.counters
        #expect(counters.streamOns == 1 && counters.streamOffs == 1)
        #expect(counters.liveMappings == 0 && counters.liveBuffers == 0 && counters.openDescriptors == 0)
        #expect(counters.shortFrames == 0)
        #expect(!loopback.capabilities.contains(.videoCapture))
    }

    @Test("The driver's answer is used: another format than asked, and a fixed size the frames are scaled to (letterboxed)")
    func driverDecides() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Only UYVY accepted: YUYV is asked for first, UYVY comes back and is written.
        let uyvyOnly = EmulatedLoopbackDevice(configuration: .init(acceptedFormats: [.uyvy]))
        let context = try TestContexts.make()
        let photo = try Self.photo(width: 320, height: 240)
        do {
            let virtual = try VirtualCamera(device: uyvyOnly.path, io: EmulatedDeviceIO([], loopbacks: [uyvyOnly]))
            let input = RawDataInput()
            input --> virtual
            try await Self.send(photo, width: 320, height: 240, count: 2, from: input, to: virtual, on: context)
            try await virtual.finish()
            #expect(virtual.statistics.mode?.fourCC == .uyvy)
            #expect(uyvyOnly.currentFormat?.fourCC == .uyvy)
        }
        // Fixed at NV12 640x360 (16:9): 320x240 (4:3) frames fill 480x360 in the middle, black bars either side.
        let fixed = EmulatedLoopbackDevice(configuration: .init(fixedFormat: .init(fourCC: .nv12, width: 640, height: 360)))
        let consumer = fixed.attachConsumer()
        let virtual = try VirtualCamera(device: fixed.path, io: EmulatedDeviceIO([], loopbacks: [fixed]))
        let input = RawDataInput()
        input --> virtual
        try await Self.send(photo, width: 320, height: 240, count: 2, from: input, to: virtual, on: context)
        try await virtual.finish()
        #expect(virtual.statistics.mode == VirtualCameraMode(fourCC: .nv12, width: 640, height: 360, bytesPerLine: 640,
                                                              imageSize: 640 * 360 * 3 / 2, interval: FrameInterval(numerator: 1, denominator: 30)))
        let frame = try #require(consumer.frames.last)
        #expect(frame.width == 640 && frame.height == 360 && frame.fourCC == .nv12)
        // Bars: Y' 16 (black, limited range) in the 80 columns at each side.
        var barLevels = Set<UInt8>()
        for y in 0..<360 {
            for x in Array(0..<78) + Array(562..<640) { barLevels.insert(frame.data[y * 640 + x]) }
        }
        #expect(barLevels == [16])
        // The middle is the photo scaled to 480x360.
        let decoded = try Self.decoded(frame, in: folder)
        var middle: [UInt8] = []
        for y in 0..<360 { middle += decoded[(y * 640 + 80) * 3..<(y * 640 + 560) * 3] }
        let reference = try Self.scaledRGB(photo, width: 320, height: 240, to: (480, 360), in: folder)
        let psnr = EncoderFixtures.psnr(middle, reference)
        #expect(psnr >= 40, "scaled middle: \(psnr) dB")  // 42.1 dB here; a swapped matrix measures about 34
    }

    @Test("A driver that takes no format ELImage writes fails the first frame with what it offers; nothing stays open")
    func formatRefused() async throws {
        let rgbOnly = EmulatedLoopbackDevice(configuration: .init(acceptedFormats: [.rgb24]))
        let virtual = try VirtualCamera(device: rgbOnly.path, io: EmulatedDeviceIO([], loopbacks: [rgbOnly]))
        let context = try TestContexts.make()
        let input = RawDataInput()
        input --> virtual
        try await input.process(try Self.photo(width: 64, height: 48), width: 64, height: 48, format: .rgba, timestamp: .zero, on: context)
        let error = await #expect(throws: ELImageError.self) { try await virtual.finish() }
        #expect("\(error.map { "\($0)" } ?? "")".contains("it offers RGB3"))
        #expect("\(error.map { "\($0)" } ?? "")".contains("v4l2loopback-ctl set-caps"))
        #expect(rgbOnly.counters.openDescriptors == 0 && rgbOnly.counters.liveBuffers == 0)
    }

    @Test("Consumers come and go while the writer keeps streaming: one stream, no frame lost")
    func consumersComeAndGo() async throws {
        let loopback = EmulatedLoopbackDevice()
        let virtual = try VirtualCamera(device: loopback.path, io: EmulatedDeviceIO([], loopbacks: [loopback]))
        let context = try TestContexts.make()
        let input = RawDataInput()
        input --> virtual
        let photo = try Self.photo(width: 64, height: 48)
        try await Self.send(photo, width: 64, height: 48, count: 4, from: input, to: virtual, on: context)
        let first = loopback.attachConsumer()
        try await Self.send(photo, width: 64, height: 48, count: 10, from: input, to: virtual, on: context)
        first.detach()
        #expect(loopback.consumerCount == 0)
        try await Self.send(photo, width: 64, height: 48, count: 5, from: input, to: virtual, on: context)
        let second = loopback.attachConsumer()
        try await Self.send(photo, width: 64, height: 48, count: 10, from: input, to: virtual, on: context)
        #expect(try await virtual.finish() == 29)
        #expect(first.frames.map(\.sequence) == Array(4..<14))
        #expect(second.frames.map(\.sequence) == Array(19..<29))
        let counters = loopback.counters
        #expect(counters.streamOns == 1 && counters.framesWritten == 29 && counters.opens == 1)
        #expect(virtual.statistics.framesDropped == 0)
    }

    @Test("The device reconfigured under the writer (another fixed format and size): frames are dropped and counted, then written in the new format")
    func reconfigured() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let loopback = EmulatedLoopbackDevice()
        let consumer = loopback.attachConsumer()
        let virtual = try VirtualCamera(device: loopback.path, io: EmulatedDeviceIO([], loopbacks: [loopback]))
        let context = try TestContexts.make()
        let changes = MessageCollector<VirtualCameraEvent>(of: virtual, on: context)  // from the context's events
        let input = RawDataInput()
        input --> virtual
        let photo = try Self.photo(width: 320, height: 240)
        try await Self.send(photo, width: 320, height: 240, count: 5, from: input, to: virtual, on: context)
        loopback.reconfigure(.init(fixedFormat: .init(fourCC: .yu12, width: 640, height: 480)))
        try await Self.send(photo, width: 320, height: 240, count: 8, from: input, to: virtual, on: context)
        try await virtual.finish()
        let statistics = virtual.statistics
        #expect(statistics.losses == 1 && statistics.reconnections == 1)
        #expect(statistics.mode?.fourCC == .yu12 && statistics.mode?.width == 640 && statistics.mode?.height == 480)
        // The frame that met the dead device, and those packed for the old format, are counted; the rest are written.
        #expect(statistics.droppedDisconnected == 1)
        #expect(statistics.droppedReconfiguring >= 1)
        #expect(statistics.framesWritten + statistics.framesDropped == 13)
        #expect(statistics.framesWritten >= 10)
        #expect(await changes.wait { $0.count == 3 })
        let told = changes.values.map { "\($0)" }
        #expect(told.first?.hasPrefix("writing YUYV 320x240") == true)
        if case .lost? = changes.values.dropFirst().first {} else { Issue.record("the second message is not the loss: \(told)") }
        #expect(told.last?.hasPrefix("device back, writing YU12 640x480") == true)
        let frames = consumer.frames
        #expect(frames.prefix(5).allSatisfy { $0.fourCC == .yuyv && $0.width == 320 })
        let last = try #require(frames.last)
        #expect(last.fourCC == .yu12 && last.width == 640 && last.height == 480)
        let reference = try Self.scaledRGB(photo, width: 320, height: 240, to: (640, 480), in: folder)
        let psnr = EncoderFixtures.psnr(try Self.decoded(last, in: folder), reference)
        #expect(psnr >= 42, "after reconfiguring: \(psnr) dB")  // 44.9 dB here; a swapped matrix measures about 34
        // The old buffers were unmapped and freed, the new ones too.
        let counters = loopback.counters
        #expect(counters.liveMappings == 0 && counters.liveBuffers == 0 && counters.openDescriptors == 0)
        #expect(counters.opens == 2)
    }

    @Test("A driver that keeps its buffers loses frames (counted) instead of holding the graph; writing resumes when it lets go")
    func stalledDriver() async throws {
        let loopback = EmulatedLoopbackDevice()
        let virtual = try VirtualCamera(device: loopback.path, settings: VirtualCameraSettings(bufferCount: 2), io: EmulatedDeviceIO([], loopbacks: [loopback]))
        let context = try TestContexts.make()
        let input = RawDataInput()
        input --> virtual
        let photo = try Self.photo(width: 64, height: 48)
        try await Self.send(photo, width: 64, height: 48, count: 3, from: input, to: virtual, on: context)
        loopback.isStalled = true
        try await Self.send(photo, width: 64, height: 48, count: 3, from: input, to: virtual, on: context)
        #expect(virtual.statistics.droppedNoBuffer == 3)
        loopback.isStalled = false
        try await Self.send(photo, width: 64, height: 48, count: 3, from: input, to: virtual, on: context)
        #expect(try await virtual.finish() == 6)
        #expect(loopback.counters.framesWritten == 6 && loopback.counters.streamOns == 1)
    }

    @Test("A device that stays away longer than the reconnect window ends the run with why; until then frames are dropped and counted")
    func goneForGood() async throws {
        let context = try TestContexts.make()
        let photo = try Self.photo(width: 64, height: 48)
        /// A virtual camera on a loopback device of its own that has written two frames.
        func writing(reconnectWindow: Duration?) async throws -> (EmulatedLoopbackDevice, EmulatedDeviceIO, RawDataInput, VirtualCamera) {
            let loopback = EmulatedLoopbackDevice()
            let io = EmulatedDeviceIO([], loopbacks: [loopback])
            let virtual = try VirtualCamera(device: loopback.path, settings: VirtualCameraSettings(reconnectWindow: reconnectWindow), io: io)
            let input = RawDataInput()
            input --> virtual
            try await Self.send(photo, width: 64, height: 48, count: 2, from: input, to: virtual, on: context)
            return (loopback, io, input, virtual)
        }
        // While the device is away, every frame is dropped and counted (here it never gives up,
        // however long a busy machine takes over the frames).
        let (away, awayIO, awayInput, kept) = try await writing(reconnectWindow: nil)
        awayIO.remove(path: away.path)
        try await Self.send(photo, width: 64, height: 48, count: 5, from: awayInput, to: kept, on: context)
        try await kept.finish()
        let statistics = kept.statistics
        #expect(statistics.framesWritten == 2 && statistics.losses == 1 && statistics.droppedDisconnected == 5, "\(statistics)")
        // As a frame account: seven frames in, two on the device, five dropped while it was away.
        let hop = try #require(kept.frameHops.first)
        #expect(hop.framesIn == 7 && hop.passedOn == 2 && hop.drops == [.init(5, "the device was away")], "\(hop)")
        #expect(away.counters.liveMappings == 0 && away.counters.openDescriptors == 0)
        // Away longer than the window: the next frame ends the run, saying why.
        let (gone, goneIO, goneInput, givingUp) = try await writing(reconnectWindow: .milliseconds(300))
        goneIO.remove(path: gone.path)
        try await Self.send(photo, width: 64, height: 48, count: 1, from: goneInput, to: givingUp, on: context)
        try await Task.sleep(for: .milliseconds(400))
        try await goneInput.process(photo, width: 64, height: 48, format: .rgba, timestamp: .zero, on: context)
        let error = await #expect(throws: ELImageError.self) { try await givingUp.finish() }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains(gone.path) && text.contains("away for more than"))
        #expect(givingUp.statistics.framesWritten == 2 && givingUp.statistics.losses == 1)
        #expect(gone.counters.liveMappings == 0 && gone.counters.openDescriptors == 0)
    }

    @Test("Devices that cannot be written are refused when the sink is made, saying why and what to do")
    func refusedDevices() throws {
        let busy = EmulatedLoopbackDevice(path: "/dev/video11")
        let shared = EmulatedLoopbackDevice(path: "/dev/video12", configuration: .init(exclusiveCaps: false))
        let io = EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0")], loopbacks: [busy, shared])
        func failure(_ path: String) -> String {
            do {
                _ = try VirtualCamera(device: path, io: io)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(failure("/dev/video0").contains("is a capture device (a camera), not a video output device"))
        #expect(failure("/dev/video0").contains("modprobe v4l2loopback"))
        #expect(failure("/dev/video9").contains("ENOENT"))
        // Another program streams to /dev/video11: with exclusive caps only its capture side shows.
        let writer = try CameraDevice(path: busy.path, io: io)
        defer { writer.close() }
        var request = v4l2_requestbuffers()
        request.count = 2
        request.type = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try writer.perform(VIDIOC.requestBuffers, &request)
        var type = Int32(V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue)
        try writer.perform(VIDIOC.streamOn, &type)
        #expect(failure(busy.path).contains("shows only its capture side: another program is writing to it"))
        // Both sides at once: writable, with the warning Chrome users need.
        let both = try VirtualCamera(device: shared.path, io: io)
        #expect(both.warnings.first?.contains("exclusive_caps=1") == true)
        #expect(throws: ELImageError.self) { _ = try VirtualCamera(device: shared.path, settings: VirtualCameraSettings(formats: [.mjpeg]), io: io) }
        #expect(throws: ELImageError.self) { _ = try VirtualCamera(device: shared.path, settings: VirtualCameraSettings(width: 640), io: io) }
    }

    /// A v4l2loopback device of this machine, if it has one.
    static let realLoopback: String? = CameraDevice.list().outputs.first(where: \.isLoopback)?.path

    @Test("A real v4l2loopback device: ffmpeg opens it as a camera and reads the picture written (≥ 36 dB)",
          .enabled(if: realLoopback != nil, "skipped: this machine has no v4l2loopback device (sudo modprobe v4l2loopback exclusive_caps=1 makes one); the emulated device's tests stand in"))
    func realDevice() async throws {
        let path = try #require(Self.realLoopback)
        let (width, height) = (320, 240)
        let virtual = try VirtualCamera(device: path)
        let context = try TestContexts.make()
        let input = RawDataInput()
        input --> virtual
        let photo = try Self.photo(width: width, height: height)
        // 30 frames a second for up to 10 s while ffmpeg reads, as a video call would.
        let feeding = Task {
            for _ in 0..<300 where !Task.isCancelled {
                try await input.process(photo, width: width, height: height, format: .rgba, timestamp: .zero, on: context)
                try await Task.sleep(for: .milliseconds(33))
            }
        }
        #expect(await waitUntil(timeout: .seconds(10)) { virtual.statistics.framesWritten >= 3 })
        let read = try await Task.detached {
            try runTool("ffmpeg", ["-v", "error", "-f", "v4l2", "-i", path, "-frames:v", "5", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        }.value
        feeding.cancel()
        _ = await feeding.result
        try await virtual.finish()
        let frameBytes = width * height * 3
        try #require(read.count == 5 * frameBytes, "ffmpeg read \(read.count) bytes from \(path)")
        let last = [UInt8](read.suffix(frameBytes))
        let psnr = EncoderFixtures.psnr(last, StillsReference.rgb(ofRGBA: photo))
        #expect(psnr >= 36, "\(path): \(psnr) dB")  // as through the emulated devices: 37.6 dB or more
    }

    @Test("Listing: output devices apart from cameras, with the formats their output side takes; a device with both sides is noted")
    func listing() {
        let io = EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0")], loopbacks: [
            EmulatedLoopbackDevice(path: "/dev/video10", configuration: .init(card: "ELImage Cam")),
            EmulatedLoopbackDevice(path: "/dev/video11", configuration: .init(fixedFormat: .init(fourCC: .yuyv, width: 1280, height: 720),
                                                                              exclusiveCaps: false)),
        ])
        let scan = CameraDevice.list(io: io)
        #expect(scan.devices.map(\.path) == ["/dev/video0", "/dev/video11"])
        #expect(scan.outputs.map(\.path) == ["/dev/video10", "/dev/video11"])
        #expect(scan.outputs[0].outputFormats.map(\.fourCC) == [.yuyv, .uyvy, .yu12, .nv12, .yv12, .rgb24])
        #expect(scan.outputs[0].isLoopback && scan.outputs[0].card == "ELImage Cam")
        #expect(scan.outputs[1].outputFormats.first?.sizes == .discrete([FrameSizeInfo(width: 1280, height: 720, intervals: .unknown)]))
        let table = DeviceTable.render(scan)
        #expect(table.contains("output devices (virtual cameras, elimage run INPUT -o DEVICE):"))
        #expect(table.contains("/dev/video10  v4l2 loopback 0.12.7  ELImage Cam"))
        #expect(table.contains("    2x2 to 8192x8192 in steps of 1x1"))
        #expect(table.contains("note: /dev/video11 advertises capture and output at once"))
        #expect(DeviceTable.render(CameraDevice.list(io: EmulatedDeviceIO([]))).contains("no V4L2 output devices (virtual cameras): sudo modprobe v4l2loopback"))
    }
}
