import ArgumentParser
import ELImage
import ELImageCamera
import ELImageCommandLine

/// `elimage devices`: the V4L2 capture devices, then the output devices (virtual cameras), as tables.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List V4L2 cameras (driver, card, bus, formats, sizes, frame rates), then output devices (virtual cameras, -o /dev/videoN).")

    func run() {
        print(DeviceTable.render(CameraDevice.list()))
    }
}

/// `elimage controls DEVICE [--set name=value]...`: a camera's controls, and setting them.
struct ControlsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls", abstract: "List a camera's controls with ranges and values; set them by name.")

    @Argument(help: "The camera, e.g. /dev/video0.")
    var device: String

    @Option(name: .customLong("set"), help: ArgumentHelp("Set a control: brightness=10 (repeatable).", valueName: "name=value"))
    var assignments: [String] = []

    func run() throws {
        var changes: [(String, Int64)] = []
        for assignment in assignments {
            let parts = assignment.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let value = Int64(parts[1]) else {
                throw UsageError("--set \(assignment): write name=INTEGER, e.g. brightness=10")
            }
            changes.append((parts[0], value))
        }
        let camera = try CameraDevice(path: device)
        defer { camera.close() }
        for (name, value) in changes {
            try camera.setValue(value, forControlNamed: name)
            print("set \(name) = \(value)")
        }
        let controls = try camera.controls()
        var values: [CameraControlID: Int64] = [:]
        for control in controls { values[control.id] = try? camera.value(of: control.id) }
        print(DeviceTable.render(controls: controls, values: values))
    }
}
