import CV4L2
import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

@Suite("Camera controls", .closesContexts)
struct CameraControlTests {
    let emulated = EmulatedVideoDevice(path: "/dev/video0", pacing: .manual)
    var io: EmulatedDeviceIO { EmulatedDeviceIO([emulated]) }

    func open() throws -> CameraDevice { try CameraDevice(path: "/dev/video0", io: io) }

    @Test("Every control is listed with type, range, step, default, flags and menu entries")
    func listing() throws {
        let device = try open()
        let controls = try device.controls()
        #expect(controls.map(\.key) == [
            "brightness", "contrast", "saturation", "hue", "white_balance_automatic", "gain", "power_line_frequency",
            "white_balance_temperature", "sharpness", "auto_exposure", "exposure_time_absolute", "focus_absolute",
            "focus_automatic_continuous", "zoom_absolute", "led_mode", "pixel_rate",
        ])
        let temperature = try #require(controls.first { $0.id == .whiteBalanceTemperature })
        #expect(temperature.name == "White Balance Temperature")
        #expect(temperature.type == .integer)
        #expect((temperature.minimum, temperature.maximum, temperature.step, temperature.defaultValue) == (2800, 6500, 10, 4600))
        #expect(temperature.flags == .inactive)  // automatic white balance is on
        let exposure = try #require(controls.first { $0.id == .exposureAuto })
        #expect(exposure.type == .menu)
        #expect(exposure.menuItems == [CameraControlMenuItem(index: 1, name: "Manual Mode"),
                                       CameraControlMenuItem(index: 3, name: "Aperture Priority Mode")])
        let pixelRate = try #require(controls.first { $0.key == "pixel_rate" })
        #expect(pixelRate.type == .integer64 && pixelRate.maximum == 1 << 40 && pixelRate.flags == .readOnly)
        #expect(try device.value(of: pixelRate.id) == 148_500_000_000)
    }

    @Test("Drivers without VIDIOC_QUERY_EXT_CTRL are listed through VIDIOC_QUERYCTRL")
    func queryControlFallback() throws {
        emulated.supportsExtendedControlQuery = false
        let device = try open()
        let controls = try device.controls()
        #expect(controls.count == 16)
        #expect(controls.first { $0.id == .brightness } == CameraControl(
            id: .brightness, name: "Brightness", type: .integer, minimum: -64, maximum: 64, step: 1, defaultValue: 0))
        #expect(controls.first { $0.id == .powerLineFrequency }?.menuItems.map(\.name) == ["Disabled", "50 Hz", "60 Hz"])
        try device.setValue(-20, for: .brightness)
        #expect(try device.value(of: .brightness) == -20)
    }

    @Test("Get and set by id and by name, reaching the driver")
    func getAndSet() throws {
        let device = try open()
        try device.setValue(17, for: .brightness)
        #expect(emulated.controlValue(.brightness) == 17)
        #expect(try device.value(of: .brightness) == 17)
        try device.setValue(40, forControlNamed: "Contrast")
        try device.setValue(300, forControlNamed: "zoom_absolute")
        try device.setValue(2, forControlNamed: "Power Line Frequency")
        #expect(emulated.controlValue(.contrast) == 40)
        #expect(emulated.controlValue(.zoomAbsolute) == 300)
        #expect(try device.value(ofControlNamed: "power_line_frequency") == 2)
        #expect(try device.value(ofControlNamed: "ZOOM, ABSOLUTE") == 300)
    }

    @Test("Out of range, off-step, bad menu entries, read-only and missing controls are errors, not no-ops")
    func invalid() throws {
        let device = try open()
        let range = #expect(throws: ELImageError.self) { try device.setValue(65, for: .brightness) }
        #expect(range.map { "\($0)" } == "/dev/video0: 65 is out of range for control 'Brightness' (-64...64). use a value from -64 to 64")
        #expect(emulated.controlValue(.brightness) == 0)
        let step = #expect(throws: ELImageError.self) { try device.setValue(4605, for: .whiteBalanceTemperature) }
        #expect(range != nil && step.map { "\($0)" }?.contains("use 4600 or 4610") == true)
        let menu = #expect(throws: ELImageError.self) { try device.setValue(2, for: .exposureAuto) }
        #expect(menu.map { "\($0)" }?.contains("choose one of 1 (Manual Mode), 3 (Aperture Priority Mode)") == true)
        let readOnly = #expect(throws: ELImageError.self) { try device.setValue(1, forControlNamed: "pixel_rate") }
        #expect(readOnly.map { "\($0)" }?.contains("is read-only") == true)
        let missing = #expect(throws: ELImageError.self) { try device.setValue(10, for: .panAbsolute) }
        #expect(missing.map { "\($0)" } == "/dev/video0 has no control 'pan_absolute' (0x009a0908). the device does not support it; list its controls with `elimage controls /dev/video0`")
        #expect(throws: ELImageError.self) { try device.value(of: .tiltAbsolute) }
        let named = #expect(throws: ELImageError.self) { try device.setValue(1, forControlNamed: "iris") }
        #expect(named.map { "\($0)" }?.hasPrefix("no control named 'iris'. the device has: brightness, contrast") == true)
    }

    @Test("The driver's own refusals (ERANGE) surface with the device and errno")
    func driverRefusal() throws {
        let device = try open()
        // Bypass the library's check to see the driver's answer to an out-of-range value.
        var request = v4l2ControlRequest(id: .gain, value: 1000)
        #expect(throws: DeviceErrno(ERANGE)) { try device.call(VIDIOC.setControl, &request) }
    }

    @Test("Typed helpers: exposure, focus, white balance, zoom, power line frequency, torch")
    func typed() throws {
        let device = try open()
        try device.setExposure(.manual(exposureTime: 500))
        #expect(emulated.controlValue(.exposureAuto) == 1)
        #expect(emulated.controlValue(.exposureAbsolute) == 500)
        #expect(try device.control(.exposureAbsolute).flags.contains(.inactive) == false)
        try device.setExposure(.automatic)
        #expect(emulated.controlValue(.exposureAuto) == 3)  // aperture priority: this webcam has no plain "auto"
        #expect(throws: ELImageError.self) { try device.setExposure(.manual(exposureTime: 5000)) }
        #expect(emulated.controlValue(.exposureAuto) == 3)  // checked before leaving automatic mode
        try device.setFocus(.manual(position: 125))
        #expect(emulated.controlValue(.focusAuto) == 0 && emulated.controlValue(.focusAbsolute) == 125)
        try device.setFocus(.automatic)
        #expect(emulated.controlValue(.focusAuto) == 1)
        try device.setWhiteBalance(.temperature(kelvin: 3200))
        #expect(emulated.controlValue(.autoWhiteBalance) == 0 && emulated.controlValue(.whiteBalanceTemperature) == 3200)
        try device.setWhiteBalance(.automatic)
        #expect(emulated.controlValue(.autoWhiteBalance) == 1)
        try device.setZoom(250)
        #expect(emulated.controlValue(.zoomAbsolute) == 250)
        try device.setPowerLineFrequency(.hz60)
        #expect(emulated.controlValue(.powerLineFrequency) == 2)
        #expect(throws: ELImageError.self) { try device.setPowerLineFrequency(.automatic) }  // not in this menu
        try device.setTorch(true)
        #expect(emulated.controlValue(.flashLEDMode) == 2)
        try device.setTorch(false)
        #expect(emulated.controlValue(.flashLEDMode) == 0)
    }

    @Test("A UVC-style 'LED1 Mode' menu serves as the torch; a camera without any LED says so")
    func ledMenuTorch() throws {
        let led = EmulatedControl(id: CameraControlID(rawValue: 0x0A04_6D05), name: "LED1 Mode", type: .menu,
                                  maximum: 3, defaultValue: 3, menu: [0: "Off", 1: "On", 2: "Blink", 3: "Auto"])
        let withLED = EmulatedVideoDevice(path: "/dev/video0", controls: [led])
        let device = try CameraDevice(path: "/dev/video0", io: EmulatedDeviceIO([withLED]))
        try device.setTorch(true)
        #expect(withLED.controlValue(led.id) == 1)
        let plain = try CameraDevice(path: "/dev/video0", io: EmulatedDeviceIO([
            EmulatedVideoDevice(path: "/dev/video0", controls: [EmulatedControl(id: .brightness, name: "Brightness")]),
        ]))
        #expect { try plain.setTorch(true) } throws: {
            "\($0)".contains("the device has no torch, flash or LED control") && "\($0)".contains("elimage controls")
        }
    }

    @Test("A camera's controls work while stopped (opened for the call) and while streaming")
    func throughTheCamera() async throws {
        let context = try TestContexts.make()
        let camera = Camera(device: "/dev/video0", io: io)
        try camera.setValue(5, for: .saturation)
        #expect(emulated.controlValue(.saturation) == 5)
        #expect(emulated.counters.openDescriptors == 0)
        try camera.start(on: context)
        try camera.setValue(6, forControlNamed: "saturation")
        #expect(try camera.value(of: .saturation) == 6)
        #expect(emulated.counters.openDescriptors == 1)  // the streaming descriptor, no extra open
        await camera.finish()
        #expect(try camera.controls().count == 16)
    }
}

/// A raw `v4l2_control`, to call the driver directly.
func v4l2ControlRequest(id: CameraControlID, value: Int32) -> v4l2_control {
    v4l2_control(id: id.rawValue, value: value)
}
