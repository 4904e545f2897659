import ELImageTestSupport
import Foundation
import Testing

/// `elimage run … -o /dev/videoN`: what a user sees without a loopback device, and the options'
/// checks. (Writing to a device is tested in VirtualCameraTests, on an emulated one and, where
/// the machine has one, a real v4l2loopback device.)
@Suite("elimage run -o /dev/videoN")
struct VirtualCameraToolTests {
    let elimage = BuiltProgram(name: "elimage")
    let photo = Repository.path("Examples/Media/astronaut.png")

    @Test("A device that does not exist: exit 1 naming it and the errno, nothing else written")
    func missingDevice() async throws {
        let result = try await elimage.run(["run", photo, "--frames", "2", "-o", "/dev/video-elimage-missing"])
        #expect(result.status == 1)
        #expect(result.errors.contains("cannot open /dev/video-elimage-missing: No such file or directory. errno ENOENT"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: "/dev/video-elimage-missing"))
    }

    @Test("The device options need a device output; bad values and sound are refused with the reason (exit 2)")
    func usage() async throws {
        let cases: [([String], String)] = [
            (["-o", "/tmp/elimage-vc.mp4", "--device-size", "640x480"], "go with a virtual camera: -o /dev/videoN"),
            (["-o", "/dev/video-elimage-missing", "--device-format", "rgb24"], "'rgb24' is not one of yuyv, uyvy, i420"),
            (["-o", "/dev/video-elimage-missing", "--device-size", "1x1"], "--device-size 1x1: write WIDTHxHEIGHT, each side 2...16384"),
            (["-o", "/dev/video-elimage-missing", "--record", "/tmp/elimage-vc.mp4"], "go with a live stream"),
            (["-o", "/dev/video-elimage-missing", "--audio", "default"], "a virtual camera (/dev/video-elimage-missing) carries video only"),
        ]
        for (arguments, message) in cases {
            let result = try await elimage.run(["run", photo, "--frames", "2"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/elimage-vc.mp4"))
    }

    @Test("elimage devices lists output devices apart from cameras, and says how to make one when there is none")
    func devices() async throws {
        let result = try await elimage.run(["devices"])
        #expect(result.status == 0)
        #expect(result.output.contains("no V4L2 output devices (virtual cameras): sudo modprobe v4l2loopback")
                || result.output.contains("output devices (virtual cameras, elimage run INPUT -o DEVICE):"), "\(result.output)")
    }
}
