import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Testing

@Suite("Camera mode selection", .closesContexts)
struct CameraModeSelectionTests {
    /// The emulated webcam's offer (YUYV up to 720p at 10/5 fps, NV12 480p, MJPEG up to 1080p).
    static let webcam: [CameraFormatDescription] = EmulatedVideoDevice.webcamFormats.map { format in
        CameraFormatDescription(fourCC: format.fourCC, name: format.name, isCompressed: format.fourCC.isJPEG, sizes: .discrete(
            format.sizes.map { size in
                FrameSizeInfo(width: size.width, height: size.height,
                              intervals: .discrete(size.framesPerSecond.map { FrameInterval(framesPerSecond: $0) }))
            }))
    }

    func choose(_ settings: CaptureSettings, _ formats: [CameraFormatDescription] = webcam) throws -> CaptureModeSelection.Candidate {
        try CaptureModeSelection.choose(settings, from: formats, path: "/dev/video9")
    }

    @Test("Exact modes; direct-upload formats before MJPEG; the rate decides between formats")
    func preferences() throws {
        // 640x480 at 30: NV12 and YUYV and MJPEG all offer it; NV12 uploads directly and ranks first.
        #expect(try choose(CaptureSettings(.vga)) == .init(fourCC: .nv12, width: 640, height: 480, interval: FrameInterval(framesPerSecond: 30)))
        // At 15 fps only YUYV offers the rate exactly.
        #expect(try choose(CaptureSettings(.vga, framesPerSecond: 15)).fourCC == .yuyv)
        // 720p at 30: YUYV has 10 fps at most there, MJPEG has 30: MJPEG.
        #expect(try choose(CaptureSettings(.hd720)) == .init(fourCC: .mjpeg, width: 1280, height: 720, interval: FrameInterval(framesPerSecond: 30)))
        // 720p at 10: YUYV gives it exactly.
        #expect(try choose(CaptureSettings(.hd720, framesPerSecond: 10)).fourCC == .yuyv)
        #expect(try choose(CaptureSettings(.hd1080)).fourCC == .mjpeg)
    }

    @Test("The closest size and rate when the exact one is not offered")
    func closest() throws {
        let odd = try choose(CaptureSettings(width: 1000, height: 600, framesPerSecond: 25))
        #expect(odd.width == 1280 && odd.height == 720)
        #expect(odd.interval == FrameInterval(framesPerSecond: 30))
        let yuyvFullHD = try choose(CaptureSettings(.hd1080, framesPerSecond: 30, pixelFormat: .yuyv))
        #expect(yuyvFullHD == .init(fourCC: .yuyv, width: 1280, height: 720, interval: FrameInterval(framesPerSecond: 10)))
    }

    @Test("High-frame-rate mode takes the shortest interval at the chosen size")
    func highFrameRate() throws {
        let vga = try choose(CaptureSettings(.vga, highFrameRate: true))
        #expect(vga == .init(fourCC: .mjpeg, width: 640, height: 480, interval: FrameInterval(framesPerSecond: 60)))
        let yuyv = try choose(CaptureSettings(.vga, pixelFormat: .yuyv, highFrameRate: true))
        #expect(yuyv.interval == FrameInterval(framesPerSecond: 30))
        // A stepwise interval range: the minimum interval.
        let stepwise = [CameraFormatDescription(fourCC: .yuyv, name: "YUYV", sizes: .discrete([
            FrameSizeInfo(width: 320, height: 240, intervals: .stepwise(
                minimum: FrameInterval(numerator: 1, denominator: 120), maximum: FrameInterval(numerator: 1, denominator: 1),
                step: FrameInterval(numerator: 1, denominator: 120))),
        ]))]
        #expect(try choose(CaptureSettings(width: 320, height: 240, highFrameRate: true), stepwise).interval
                == FrameInterval(numerator: 1, denominator: 120))
    }

    @Test("Stepwise sizes are fitted into the range and onto the step; intervals asked at that size")
    func stepwiseSizes() throws {
        let formats = [CameraFormatDescription(fourCC: .nv12, name: "NV12", sizes: .stepwise(
            minWidth: 64, maxWidth: 1920, stepWidth: 16, minHeight: 64, maxHeight: 1080, stepHeight: 8))]
        var asked: [(Int, Int)] = []
        let candidate = try CaptureModeSelection.choose(CaptureSettings(width: 1001, height: 5000), from: formats,
                                                        path: "/dev/video9") { _, width, height in
            asked.append((width, height))
            return .discrete([FrameInterval(framesPerSecond: 25)])
        }
        #expect(candidate.width == 1008 && candidate.height == 1080)
        #expect(asked.count == 1 && asked[0] == (1008, 1080))
        #expect(candidate.interval == FrameInterval(framesPerSecond: 25))
    }

    @Test("A format the device lacks, or only formats ELImage cannot convert, is an error naming what is offered")
    func unsupported() throws {
        let missing = #expect(throws: ELImageError.self) { try choose(CaptureSettings(.vga, pixelFormat: "RGBP")) }
        #expect("\(missing.map { "\($0)" } ?? "")".contains("/dev/video9: pixel format RGBP is not offered"))
        #expect("\(missing.map { "\($0)" } ?? "")".contains("YUYV, NV12, MJPG"))
        let bayer = [CameraFormatDescription(fourCC: "BA81", name: "Bayer", sizes: .discrete([
            FrameSizeInfo(width: 640, height: 480, intervals: .unknown)]))]
        let none = #expect(throws: ELImageError.self) { try choose(CaptureSettings(.vga), bayer) }
        #expect("\(none.map { "\($0)" } ?? "")".contains("none of the offered formats (BA81) can be captured"))
    }

    @Test("Adjustments describe how the chosen mode differs from the request")
    func adjustments() {
        let mode = CaptureMode(fourCC: .yuyv, width: 1280, height: 720, interval: FrameInterval(framesPerSecond: 10),
                               bytesPerLine: 2560, imageSize: 1_843_200, colorSpace: .bt601)
        let notes = CaptureModeSelection.adjustments(from: CaptureSettings(.hd1080, framesPerSecond: 30, pixelFormat: .yuyv), to: mode)
        #expect(notes == ["1920x1080 is not offered, the closest is 1280x720",
                          "30 fps is not offered at 1280x720, the closest is 10 fps"])
        #expect(CaptureModeSelection.adjustments(from: CaptureSettings(.hd720, framesPerSecond: 10), to: mode).isEmpty)
    }

    @Test("The camera reports the mode the driver set, and the driver got what was chosen")
    func negotiatedThroughTheDevice() async throws {
        let device = EmulatedVideoDevice(path: "/dev/video0", pacing: .manual)
        let context = try TestContexts.make()
        let camera = Camera(device: "/dev/video0", settings: CaptureSettings(width: 1000, height: 700, framesPerSecond: 60), io: EmulatedDeviceIO([device]))
        try camera.start(on: context)
        defer { camera.cancel() }
        let choice = try #require(camera.modeChoice)
        #expect(choice.mode.fourCC == .mjpeg)
        #expect(choice.mode.width == 1280 && choice.mode.height == 720)
        #expect(choice.mode.interval == FrameInterval(framesPerSecond: 60))
        #expect(choice.mode.colorSpace == .jpeg)
        #expect(choice.adjustments == ["1000x700 is not offered, the closest is 1280x720"])
        #expect("\(choice)" == "MJPG 1280x720 @ 60 fps (1000x700 is not offered, the closest is 1280x720)")
        let set = try #require(device.currentFormat)
        #expect(set.fourCC == .mjpeg && set.width == 1280 && set.height == 720)
        try camera.restart(with: CaptureSettings(.vga, framesPerSecond: 15))
        #expect(camera.mode?.fourCC == .yuyv)
        #expect(camera.mode?.interval == FrameInterval(framesPerSecond: 15))
        #expect(camera.mode?.bytesPerLine == 1280)
        #expect(camera.mode?.colorSpace == ColorSpace(matrix: .bt601, range: .limited, primaries: .bt709, transfer: .srgb))
        #expect(camera.modeChoice?.isExact == true)
    }
}
