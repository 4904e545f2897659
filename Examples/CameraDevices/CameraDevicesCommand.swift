// camera-devices: lists V4L2 capture devices, their formats, sizes and frame rates; lists and sets
// a device's controls.
//
//   swift run camera-devices                                   # the device table
//   swift run camera-devices --controls /dev/video0            # the controls of one device
//   swift run camera-devices --controls /dev/video0 --set brightness=10 --set zoom_absolute=200
//   swift run camera-devices --emulated                        # show an emulated camera (no hardware)
import ArgumentParser
import ELImage
import ELImageCamera
import ELImageTesting
import Foundation

@main
struct CameraDevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera-devices",
        abstract: "List V4L2 capture devices, or a device's controls, and set controls.")

    @Option(name: .long, help: ArgumentHelp("List the controls of this device (e.g. /dev/video0).", valueName: "device"))
    var controls: String?

    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Set a control, by name or id: brightness=10, 0x00980900=10. Repeatable; needs --controls.",
        valueName: "name=value"))
    var assignments: [String] = []

    @Flag(name: .long, help: "Use two emulated cameras instead of /dev (a demonstration without hardware).")
    var emulated = false

    func validate() throws {
        if !assignments.isEmpty, controls == nil {
            throw ValidationError("--set needs the device: add --controls /dev/videoN")
        }
    }

    func run() throws {
        let io: any VideoDeviceIO = emulated
            ? EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0"),
                                EmulatedVideoDevice(path: "/dev/video1", kind: .metadata),
                                EmulatedVideoDevice(path: "/dev/video2", card: "ELImage Emulated Camera 2")])
            : LibV4L2DeviceIO()
        guard let path = controls else {
            print(DeviceTable.render(CameraDevice.list(io: io)))
            return
        }
        do {
            let device = try CameraDevice(path: path, io: io)
            defer { device.close() }
            for assignment in assignments {
                let (name, value) = try parse(assignment)
                if let id = UInt32(name.hasPrefix("0x") ? String(name.dropFirst(2)) : name, radix: name.hasPrefix("0x") ? 16 : 10) {
                    try device.setValue(value, for: CameraControlID(rawValue: id))
                } else {
                    try device.setValue(value, forControlNamed: name)
                }
                print("set \(name) = \(value)")
            }
            let list = try device.controls()
            var values: [CameraControlID: Int64] = [:]
            for control in list { values[control.id] = try? device.value(of: control.id) }
            print("\(path):")
            print(DeviceTable.render(controls: list, values: values))
        } catch {
            FileHandle.standardError.write(Data("camera-devices: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    private func parse(_ assignment: String) throws -> (String, Int64) {
        let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, let value = Int64(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw ELImageError.invalidInput(what: "'\(assignment)' is not name=value",
                                            hint: "write e.g. --set brightness=10 (values are integers; menus take the entry's index)")
        }
        return (parts[0].trimmingCharacters(in: .whitespaces), value)
    }
}
