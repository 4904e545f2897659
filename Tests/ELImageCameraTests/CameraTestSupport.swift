// The camera tests need the test target to depend on ELImageCamera (Package.swift); until it
// does, CV4L2 is not visible here and these files compile to nothing.
import Dispatch
import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import ELImageMedia
import Foundation

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

extension Camera {
    /// A camera on the emulated `device`.
    convenience init(emulating device: EmulatedVideoDevice, settings: CaptureSettings) {
        self.init(device: device.path, settings: settings, io: EmulatedDeviceIO([device]))
    }
}
