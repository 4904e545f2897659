// The camera tests need the test target to depend on ELImageCamera (Package.swift); until it
// does, CV4L2 is not visible here and these files compile to nothing.
import Dispatch
import ELImage
@testable import ELImageCamera
import ELImageMedia
import Foundation

/// A sink that reads every frame back and records it, counts end-of-stream, and can hold the
/// render thread on chosen frames (a slow consumer).
final class CameraSink: ImageInput, @unchecked Sendable {
    // @unchecked Sendable: the recorded values live behind locks; `gate` is a semaphore.
    let inputSlots = InputSlots()
    private let images = Locked<[RGBAImage]>([])
    private let ends = Locked(0)
    private let holding = Locked<Set<Int>>([])
    /// Signalled once per frame that `hold(frameIndex:)` asked to hold; the frame then waits for `release()`.
    let gate = DispatchSemaphore(value: 0)
    private let held = Locked(0)

    /// The frames so far, read back as RGBA with their times.
    var received: [RGBAImage] { images.withLock { $0 } }
    var count: Int { images.withLock { $0.count } }
    var endOfStreamCount: Int { ends.withLock { $0 } }
    /// How many frames are being held on the render thread now.
    var heldCount: Int { held.withLock { $0 } }

    /// Holds the render thread on the `index`-th received frame (0-based) until `release()`.
    func hold(frameIndex index: Int) { holding.withLock { _ = $0.insert(index) } }

    func release() { gate.signal() }

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        var rgba = try PixelBuffer(format: .rgba, width: frame.width, height: frame.height)
        try context.readPixels(of: frame, into: &rgba)
        let position = images.withLock { list in
            list.append(RGBAImage(width: frame.width, height: frame.height, pixels: rgba.data, timestamp: frame.timestamp))
            return list.count - 1
        }
        if holding.withLock({ $0.contains(position) }) {
            held.withLock { $0 += 1 }
            gate.wait()
            held.withLock { $0 -= 1 }
        }
    }

    func endOfStream(at index: Int, in context: isolated RenderContext) {
        ends.withLock { $0 += 1 }
    }
}

/// Records what reaches a context's error handler.
final class FailureRecorder: Sendable {
    private let failures = Locked<[NodeFailure]>([])
    var all: [NodeFailure] { failures.withLock { $0 } }
    /// The ELImageErrors among the failures.
    var errors: [ELImageError] { all.compactMap { $0.error as? ELImageError } }

    init(_ context: RenderContext) {
        context.setErrorHandler { [self] failure in failures.withLock { $0.append(failure) } }
    }
}

/// Waits until `condition` holds, polling; false when `timeout` passed first. The timeout is
/// generous for a loaded machine; a passing condition returns at once.
@discardableResult
func waitUntil(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// A small emulated webcam for streaming tests: one format at one size and rate.
func emulatedCamera(path: String = "/dev/video0", fourCC: FourCC = .yuyv, width: Int = 64, height: Int = 48,
                    framesPerSecond: Double = 200, pacing: EmulatedVideoDevice.Pacing = .realTime,
                    picture: RGBAImage? = nil, rowPadding: Int = 0) -> EmulatedVideoDevice {
    EmulatedVideoDevice(path: path, formats: [
        EmulatedVideoDevice.Format(fourCC: fourCC, sizes: [
            EmulatedVideoDevice.Format.Size(width: width, height: height, framesPerSecond: [framesPerSecond]),
        ]),
    ], picture: picture, pacing: pacing, rowPadding: rowPadding)
}

/// A picture of one colour.
func solidPicture(width: Int, height: Int, _ color: SIMD3<UInt8>) -> RGBAImage {
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for index in 0..<(width * height) {
        pixels[index * 4] = color.x
        pixels[index * 4 + 1] = color.y
        pixels[index * 4 + 2] = color.z
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
}

/// The astronaut photo (512x512).
func astronautPhoto() throws -> RGBAImage {
    try PNGFile.read(Repository.path("Examples/Media/astronaut.png"))
}

/// Settings for the single-mode emulated cameras. The stall timeout is long: a manually paced
/// camera makes no frame between two `emitFrames`, however long a busy test machine takes.
/// The stall timeout is an hour: with manual pacing no next frame is normal, and a test that the
/// busy machine keeps from running for a minute must not see a stall (the stall tests set their own).
func testSettings(width: Int = 64, height: Int = 48, framesPerSecond: Double = 200,
                  pixelFormat: FourCC? = nil, stallTimeout: Duration = .seconds(3600)) -> CaptureSettings {
    CaptureSettings(width: width, height: height, framesPerSecond: framesPerSecond, pixelFormat: pixelFormat,
                    stallTimeout: stallTimeout)
}

extension ELImageError {
    /// The errno of an `.io` error.
    var ioErrno: Int32? {
        if case let .io(_, _, code, _) = self { return code }
        return nil
    }

    /// The file of an `.io` error.
    var ioFile: String? {
        if case let .io(file, _, _, _) = self { return file }
        return nil
    }
}
