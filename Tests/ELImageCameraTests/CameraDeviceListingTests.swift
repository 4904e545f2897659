import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

@Suite("Camera device listing", .closesContexts)
struct CameraDeviceListingTests {
    @Test("Capture devices are listed with driver, card, bus, capabilities, formats, sizes and rates")
    func listing() throws {
        let locked = EmulatedVideoDevice(path: "/dev/video4", card: "Locked Cam")
        locked.openError = EACCES
        let io = EmulatedDeviceIO([
            EmulatedVideoDevice(path: "/dev/video0", card: "Front Cam", bus: "usb-0000:00:14.0-1"),
            EmulatedVideoDevice(path: "/dev/video1", card: "Front Cam", kind: .metadata),
            EmulatedVideoDevice(path: "/dev/video2", card: "Back Cam", formats: [
                .init(fourCC: .nv12, sizes: [.init(width: 1920, height: 1080, framesPerSecond: [30, 60])]),
            ]),
            locked,
        ])
        let scan = CameraDevice.list(io: io)
        #expect(scan.devices.map(\.path) == ["/dev/video0", "/dev/video2"])
        let front = try #require(scan.devices.first)
        #expect(front.driver == "elimage-emu")
        #expect(front.card == "Front Cam")
        #expect(front.bus == "usb-0000:00:14.0-1")
        #expect(front.driverVersion == "6.1.0")
        #expect(front.capabilities == [.videoCapture, .streaming])
        #expect(front.formats.map(\.fourCC) == [.yuyv, .nv12, .mjpeg])
        #expect(front.formats[2].isCompressed && !front.formats[0].isCompressed)
        #expect(front.formats[0].sizes == .discrete([
            FrameSizeInfo(width: 320, height: 240, intervals: .discrete([.init(numerator: 1, denominator: 30), .init(numerator: 1, denominator: 15)])),
            FrameSizeInfo(width: 640, height: 480, intervals: .discrete([.init(numerator: 1, denominator: 30), .init(numerator: 1, denominator: 15)])),
            FrameSizeInfo(width: 1280, height: 720, intervals: .discrete([.init(numerator: 1, denominator: 10), .init(numerator: 1, denominator: 5)])),
        ]))
        // The node that cannot be opened is reported with the reason, not skipped silently.
        #expect(scan.unavailable.map(\.path) == ["/dev/video4"])
        #expect(scan.unavailable.first?.error.ioErrno == EACCES)

        let table = DeviceTable.render(scan)
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("DEVICE       DRIVER"))
        #expect(lines[1] == "/dev/video0  elimage-emu 6.1.0  Front Cam  usb-0000:00:14.0-1         capture, streaming")
        #expect(table.contains("  MJPG (Motion-JPEG) [compressed]\n    640x480 @ 60, 30 fps"))
        #expect(table.contains("/dev/video2 (Back Cam):\n  NV12 (Y/UV 4:2:0)\n    1920x1080 @ 30, 60 fps"))
        #expect(table.contains("/dev/video4: cannot open /dev/video4: Permission denied. errno EACCES: permission denied: add your user to the 'video' group"))
    }

    @Test("No devices: the table says so")
    func empty() {
        let scan = CameraDevice.list(io: EmulatedDeviceIO([]))
        #expect(scan.devices.isEmpty && scan.unavailable.isEmpty)
        #expect(DeviceTable.render(scan) == "no V4L2 capture devices found\n\n"
                + "no V4L2 output devices (virtual cameras): sudo modprobe v4l2loopback exclusive_caps=1 card_label=ELImage makes one")
        // The real /dev of this machine has no cameras either; listing it must not fail.
        let real = CameraDevice.list(io: LibV4L2DeviceIO(deviceFolder: "/nonexistent"))
        #expect(real.devices.isEmpty)
    }

    @Test("The command-line listing prints the table and exits 0")
    func commandLine() throws {
        // The test bundle and the example program are built into the same folder.
        let folder = try #require(Bundle.main.executableURL?.deletingLastPathComponent())
        let tool = folder.appendingPathComponent("camera-devices").path
        try #require(FileManager.default.isExecutableFile(atPath: tool), "build camera-devices first: \(tool)")
        let emulated = String(decoding: try runTool(tool, ["--emulated"]), as: UTF8.self)
        #expect(emulated.contains("/dev/video0  elimage-emu 6.1.0  ELImage Emulated Camera"))
        #expect(!emulated.contains("/dev/video1  "))  // the metadata node
        let controls = String(decoding: try runTool(tool, ["--emulated", "--controls", "/dev/video0", "--set", "brightness=12",
                                                           "--set", "power_line_frequency=2"]), as: UTF8.self)
        #expect(controls.contains("set brightness = 12"))
        #expect(controls.split(separator: "\n").contains { $0.hasPrefix("brightness ") && $0.contains("-64...64") && $0.contains(" 12") })
        #expect(throws: ToolFailure.self) { try runTool(tool, ["--emulated", "--controls", "/dev/video0", "--set", "zoom_absolute=9999"]) }
    }
}
