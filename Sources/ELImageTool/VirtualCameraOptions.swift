import ArgumentParser
import ELImage
import ELImageCamera
import ELImageCommandLine

/// `elimage run`'s options for `-o /dev/videoN`, a virtual camera (a v4l2loopback device): the
/// formats and size to offer the driver, and how frames fill a size of another shape.
struct VirtualCameraOptions: ParsableArguments {
    @Option(name: .customLong("device-format"), help: ArgumentHelp(
        "Pixel formats to offer the device, most wanted first (default yuyv,i420,nv12,uyvy); the driver's answer is used.",
        valueName: "formats"))
    var deviceFormat: String?

    @Option(name: .customLong("device-size"), help: ArgumentHelp(
        "The size to ask the device for (default: the input's); a device fixed to another size gets frames scaled to its own.",
        valueName: "WIDTHxHEIGHT"))
    var deviceSize: String?

    @Option(help: "How frames fill a device size of another shape: fit (black bars, default), fill (cropped) or stretch.")
    var scaling: FrameScaling?

    /// The settings for a virtual camera at `framesPerSecond`, kept reconnecting for `reconnectWindow`.
    func settings(framesPerSecond: Double, reconnectWindow: Duration?) throws(UsageError) -> VirtualCameraSettings {
        var settings = VirtualCameraSettings(framesPerSecond: framesPerSecond, reconnectWindow: reconnectWindow)
        if let deviceFormat {
            var chosen: [FourCC] = []
            // By ELImage's pixel format names (as --format), or by V4L2 code.
            let writable = VirtualCameraSettings.writableFormats
            for name in deviceFormat.lowercased().split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let fourCC = writable.first(where: { $0.pixelFormat?.rawValue == name || "\($0)".lowercased() == name }) else {
                    let names = writable.compactMap(\.pixelFormat?.rawValue).joined(separator: ", ")
                    throw UsageError("--device-format \(deviceFormat): '\(name)' is not one of \(names)")
                }
                chosen.append(fourCC)
            }
            guard !chosen.isEmpty else { throw UsageError("--device-format: give at least one format, e.g. --device-format yuyv") }
            settings.formats = chosen
        }
        if let deviceSize {
            let size = try SizeArgument.parse(deviceSize, option: "--device-size", minimum: 2, example: "1280x720")
            (settings.width, settings.height) = (size.width, size.height)
        }
        if let scaling { settings.scaling = scaling }
        return settings
    }

    /// Refuses these options without a virtual camera output.
    func checkUsage(output: OutputKind?) throws(UsageError) {
        if case .virtualCamera? = output { return }
        if deviceFormat != nil || deviceSize != nil || scaling != nil {
            throw UsageError("--device-format, --device-size and --scaling go with a virtual camera: -o /dev/videoN (a v4l2loopback device)")
        }
    }
}
