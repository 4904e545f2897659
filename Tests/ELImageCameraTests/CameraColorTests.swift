import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// Each limit on the mean difference from the photo sits between what the right conversion measures
/// (1.2 levels through YUYV, 1.4 through NV12 and P010, 1.85 and 2.15 through 4:2:2 and 4:2:0
/// JPEG) and what a one-sample chroma shift measures (2.7).
@Suite("Camera frame colour", .closesContexts)
struct CameraColorTests {
    /// Captures one frame of `fourCC` from an emulated camera serving `data` (or its own encoding
    /// of the photo when `nil`) and returns it with the photo as RGB24.
    func capture(_ fourCC: FourCC, data: (TemporaryFolder, String) throws -> [UInt8]?, rowPadding: Int = 0)
        async throws -> (image: RGBAImage, photo: [UInt8], mode: CaptureMode?) {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let photo = try SwscaleReference.rgbFile(from: ["-i", Repository.path("Examples/Media/astronaut.png")],
                                                 width: 512, height: 512, in: folder, name: "photo")
        let device = emulatedCamera(fourCC: fourCC, width: 512, height: 512, framesPerSecond: 30, pacing: .manual,
                                    picture: try astronautPhoto(), rowPadding: rowPadding)
        if let bytes = try data(folder, photo.path) {
            device.setFrameData(bytes, fourCC: fourCC, width: 512, height: 512)
        }
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(width: 512, height: 512, framesPerSecond: 30), io: EmulatedDeviceIO([device]))
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        device.emitFrames()
        #expect(await sink.waitForFrames(1))
        let mode = camera.mode
        await camera.finish()
        #expect(failures.all.isEmpty, "\(failures.all)")
        let image = try #require(sink.received.first)
        return (image, photo.pixels, mode)
    }

    /// ffmpeg's conversion of the photo to `pixelFormat`, BT.601 limited range (what the emulated
    /// webcam reports: colorspace sRGB, defaults for the rest).
    func swscale(_ pixelFormat: String) -> (TemporaryFolder, String) throws -> [UInt8]? {
        { folder, photo in
            let raw = folder.path("frame.\(pixelFormat)")
            try SwscaleReference.yuv(fromRGB: photo, width: 512, height: 512, pixelFormat: pixelFormat,
                                     colorSpace: .bt601, output: raw)
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        }
    }

    @Test("YUYV of the photo (made by ffmpeg), through capture and the GPU, matches the photo", arguments: [0, 32])
    func yuyv(padding: Int) async throws {
        let (image, photo, mode) = try await capture(.yuyv, data: swscale("yuyv422"), rowPadding: padding)
        #expect(mode?.bytesPerLine == 1024 + padding)
        #expect(mode?.colorSpace.matrix == .bt601 && mode?.colorSpace.range == .limited)
        let difference = ImageDifference(rgba: image.pixels, rgb: photo, width: 512, height: 512)
        #expect(difference.meanAbsolute <= 1.6, "\(difference)")
    }

    @Test("P010 (10-bit) of the photo (made by ffmpeg), with padded rows: captured into a half-float graph, it reads back as P010 above 70 dB a plane")
    func p010() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let photo = try SwscaleReference.rgbFile(from: ["-i", Repository.path("Examples/Media/astronaut.png")],
                                                 width: 512, height: 512, in: folder, name: "photo")
        let reference = try #require(try swscale("p010le")(folder, photo.path))
        let device = emulatedCamera(fourCC: .p010, width: 512, height: 512, framesPerSecond: 30, pacing: .manual,
                                    picture: try astronautPhoto(), rowPadding: 64)
        device.setFrameData(reference, fourCC: .p010, width: 512, height: 512)
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(device: "/dev/video0", settings: testSettings(width: 512, height: 512, framesPerSecond: 30),
                            io: EmulatedDeviceIO([device]))
        let sink = FrameCollector(format: .p010)
        let rgba = FrameCollector()
        camera --> sink
        camera --> rgba
        try camera.start(on: context)
        device.emitFrames()
        #expect(await sink.waitForFrames(1))
        #expect(camera.mode?.fourCC == .p010 && camera.mode?.bytesPerLine == 1024 + 64)
        await camera.finish()
        #expect(failures.all.isEmpty, "\(failures.all)")
        let captured = try #require(sink.buffers.first)
        func codes(_ bytes: [UInt8]) -> [Int] { stride(from: 0, to: bytes.count - 1, by: 2).map { (Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8) >> 6 } }
        let before = codes(reference), after = codes(captured.data)
        let lumaCount = 512 * 512
        for (name, range) in [("Y'", 0..<lumaCount), ("CbCr", lumaCount..<before.count)] {
            let squared = zip(before[range], after[range]).reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) }
            let psnr = squared == 0 ? Double.infinity : 10 * log10(1023.0 * 1023.0 / (squared / Double(range.count)))
            #expect(psnr >= 70, "\(name): \(psnr) dB")
        }
        let image = try #require(rgba.received.first)
        let difference = ImageDifference(rgba: image.pixels, rgb: photo.pixels, width: 512, height: 512)
        #expect(difference.meanAbsolute <= 1.8, "\(difference)")
    }

    @Test("NV12 of the photo (made by ffmpeg), with padded rows, matches the photo")
    func nv12() async throws {
        let (image, photo, _) = try await capture(.nv12, data: swscale("nv12"), rowPadding: 64)
        let difference = ImageDifference(rgba: image.pixels, rgb: photo, width: 512, height: 512)
        #expect(difference.meanAbsolute <= 1.8, "\(difference)")
    }

    @Test("The emulated camera's own YUYV and NV12 encodings match the photo too", arguments: [FourCC.yuyv, .nv12, .yu12])
    func emulatorEncoding(fourCC: FourCC) async throws {
        let (image, photo, _) = try await capture(fourCC, data: { _, _ in nil })
        let difference = ImageDifference(rgba: image.pixels, rgb: photo, width: 512, height: 512)
        #expect(difference.meanAbsolute <= (fourCC == .yuyv ? 1.6 : 1.8), "\(fourCC): \(difference)")
    }

    @Test("MJPEG: a 4:2:0 JPEG made by ffmpeg decodes to I420 and matches the photo")
    func mjpegFromFFmpeg() async throws {
        let (image, photo, mode) = try await capture(.mjpeg, data: { folder, photo in
            let jpeg = folder.path("frame.jpg")
            try runTool("ffmpeg", ["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "512x512", "-i", photo,
                                   "-pix_fmt", "yuvj420p", "-q:v", "2", "-frames:v", "1", jpeg])
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        })
        #expect(mode?.colorSpace == .jpeg)
        let difference = ImageDifference(rgba: image.pixels, rgb: photo, width: 512, height: 512)
        #expect(difference.meanAbsolute <= 2.45, "\(difference)")
    }

    @Test("MJPEG: a 4:2:2 JPEG (libturbojpeg, as webcams send) matches the photo")
    func mjpegFromTurbo() async throws {
        let (image, photo, _) = try await capture(.mjpeg, data: { _, _ in nil })
        let difference = ImageDifference(rgba: image.pixels, rgb: photo, width: 512, height: 512)
        #expect(difference.meanAbsolute <= 2.3, "\(difference)")
    }
}

@Suite("Camera MJPEG decoder", .closesContexts)
struct CameraMJPEGDecoderTests {
    @Test("Planes at the JPEG's own subsampling; the photo's pixels where the JPEG has them")
    func subsampling() throws {
        let decoder = try MJPEGDecoder()
        let hopper = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repository.path("Examples/Media/grace_hopper.jpg"))))
        let frame = try hopper.withUnsafeBytes {
            try decoder.decode($0, expectedSize: (512, 600), timestamp: MediaTime(microseconds: 5), colorSpace: .jpeg, source: ("/dev/video0", 0))
        }
        #expect(frame.format == .i420 && frame.width == 512 && frame.height == 600)
        #expect(frame.timestamp == MediaTime(microseconds: 5) && frame.chromaLocation == .center)
        // ffmpeg decodes the same file to the same planes (both use the accurate integer IDCT).
        let reference = [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", Repository.path("Examples/Media/grace_hopper.jpg"),
                                                        "-f", "rawvideo", "-pix_fmt", "yuvj420p", "-"]))
        #expect(reference.count == frame.data.count)
        let differing = zip(reference, frame.data).filter { abs(Int($0) - Int($1)) > 1 }.count
        #expect(differing == 0, "\(differing) samples differ by more than 1")

        let photo = try astronautPhoto()
        let turbo = try EmulatedFrames.jpeg(photo)
        let i422 = try turbo.withUnsafeBytes {
            try decoder.decode($0, expectedSize: (512, 512), timestamp: .zero, colorSpace: .jpeg, source: ("/dev/video0", 1))
        }
        #expect(i422.format == .i422 && i422.planes.map(\.bytesPerRow) == [512, 256, 256])
    }

    @Test("Damaged data is an error naming the device and the frame")
    func damaged() throws {
        let decoder = try MJPEGDecoder()
        let junk = [UInt8](repeating: 0x42, count: 300)
        let thrown = #expect(throws: ELImageError.self) {
            try junk.withUnsafeBytes { try decoder.decode($0, expectedSize: (64, 48), timestamp: .zero, colorSpace: .jpeg, source: ("/dev/video3", 41)) }
        }
        #expect(thrown.map { "\($0)" }?.hasPrefix("/dev/video3, frame 41: the MJPEG frame has no readable JPEG header") == true)
    }

    @Test("A frame of another size than the negotiated one, or cut short, is refused before it is decoded")
    func sizeAndEnd() throws {
        let decoder = try MJPEGDecoder()
        let hopper = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repository.path("Examples/Media/grace_hopper.jpg"))))
        func decode(_ bytes: [UInt8], expecting size: (Int, Int)) -> String? {
            do {
                _ = try bytes.withUnsafeBytes {
                    try decoder.decode($0, expectedSize: size, timestamp: .zero, colorSpace: .jpeg, source: ("/dev/video2", 7))
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(decode(hopper, expecting: (640, 480))
                == "/dev/video2, frame 7: the MJPEG frame's header gives 512x600, not the 640x480 negotiated with the device; the frame is damaged")
        let cut = Array(hopper.prefix(hopper.count * 2 / 3))
        #expect(decode(cut, expecting: (512, 600))
                == "/dev/video2, frame 7: the MJPEG frame of \(cut.count) bytes has no end-of-image marker: it is cut short, and would show grey where its data is missing")
        // Zero padding after the end marker, as some devices fill their buffers, is not damage.
        #expect(decode(hopper + [UInt8](repeating: 0, count: 4096), expecting: (512, 600)) == nil)
    }

    @Test("A damaged MJPEG frame in a stream is counted as corrupted, the next good one is delivered")
    func damagedInStream() async throws {
        let device = emulatedCamera(fourCC: .mjpeg, width: 64, height: 48, framesPerSecond: 30, pacing: .manual)
        device.setFrameData([UInt8](repeating: 0x42, count: 300), fourCC: .mjpeg, width: 64, height: 48)
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let camera = Camera(emulating: device, settings: testSettings(framesPerSecond: 30))
        let sink = FrameCollector()
        camera --> sink
        try camera.start(on: context)
        device.emitFrames()
        #expect(await waitUntil { camera.statistics.damaged == 1 })
        device.emitFrames()
        #expect(await waitUntil { camera.statistics.damaged == 2 })
        device.setFrameData(try EmulatedFrames.jpeg(solidPicture(width: 64, height: 48, [200, 100, 50])),
                            fourCC: .mjpeg, width: 64, height: 48)
        device.emitFrames()
        #expect(await sink.waitForFrames(1))
        await camera.finish()
        // The first damaged frame is reported (not fatal: no end-of-stream before stop), the second only counted.
        #expect(failures.errors.map { "\($0)" } == ["/dev/video0, frame 0: the MJPEG frame has no readable JPEG header: Not a JPEG file: starts with 0x42 0x42"])
        #expect(camera.statistics.produced == 1)
        let pixel = try #require(sink.received.first)[32, 24]
        #expect(abs(Int(pixel.x) - 200) <= 3 && abs(Int(pixel.y) - 100) <= 3 && abs(Int(pixel.z) - 50) <= 3, "\(pixel)")
    }
}
