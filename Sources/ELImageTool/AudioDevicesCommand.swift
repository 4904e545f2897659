import ArgumentParser
import ELImageMedia

/// `elimage audio-devices`: the sound sources of the PulseAudio (or PipeWire) server.
struct AudioDevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-devices",
        abstract: "List the sound sources (microphones, inputs, monitors of outputs) for --audio.")

    func run() throws {
        let devices: [AudioDevice]
        do {
            devices = try AudioDevices.list()
        } catch {
            throw ToolFailure(error.description)
        }
        if devices.isEmpty { print("the sound server has no sources") }
        for device in devices {
            let kind = device.isMonitor ? "monitor" : "input"
            print("\(device.name)\(device.isDefault ? " (default)" : ""): \(device.description), \(kind), "
                  + "\(device.channels) channel\(device.channels == 1 ? "" : "s") at \(device.sampleRate) Hz")
        }
    }
}
