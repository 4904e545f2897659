/// Renders devices and controls as plain-text tables, for command-line tools.
public enum DeviceTable {
    /// One row per capture device (path, driver, card, bus, capabilities), then each device's
    /// formats with their sizes and frame rates; then the output devices (virtual cameras) the
    /// same way; then the nodes that could not be read and why. Says "no V4L2 capture devices
    /// found" when there are none (and how to make a virtual camera when there is no output device).
    public static func render(_ scan: CameraDeviceScan) -> String {
        var lines: [String] = []
        if scan.devices.isEmpty {
            lines.append("no V4L2 capture devices found")
        } else {
            lines += devices(scan.devices, formats: \.formats)
        }
        lines.append("")
        if scan.outputs.isEmpty {
            lines.append("no V4L2 output devices (virtual cameras): sudo modprobe v4l2loopback exclusive_caps=1 card_label=ELImage makes one")
        } else {
            lines.append("output devices (virtual cameras, elimage run INPUT -o DEVICE):")
            lines += devices(scan.outputs, formats: \.outputFormats)
            for device in scan.outputs where device.capabilities.contains(.videoCapture) {
                lines.append("")
                lines.append("note: \(device.path) advertises capture and output at once: Chrome hides such a device; load v4l2loopback with exclusive_caps=1")
            }
        }
        if !scan.unavailable.isEmpty {
            lines.append("")
            lines.append("could not read:")
            for node in scan.unavailable { lines.append("  \(node.path): \(node.error)") }
        }
        return lines.joined(separator: "\n")
    }

    /// The table of `devices`, then each one's `formats` with their sizes and frame rates.
    private static func devices(_ devices: [CameraDeviceInfo], formats: KeyPath<CameraDeviceInfo, [CameraFormatDescription]>) -> [String] {
        var lines = table(
            header: ["DEVICE", "DRIVER", "CARD", "BUS", "CAPABILITIES"],
            rows: devices.map { [$0.path, "\($0.driver) \($0.driverVersion)", $0.card, $0.bus, "\($0.capabilities)"] })
        for device in devices {
            lines.append("")
            lines.append("\(device.path) (\(device.card)):")
            if device[keyPath: formats].isEmpty { lines.append("  no formats") }
            for format in device[keyPath: formats] {
                var notes: [String] = []
                if format.isCompressed { notes.append("compressed") }
                if format.isEmulated { notes.append("converted by libv4l2") }
                if !format.fourCC.isCapturable { notes.append("not capturable by ELImage") }
                let suffix = notes.isEmpty ? "" : " [\(notes.joined(separator: ", "))]"
                lines.append("  \(format.fourCC) (\(format.name))\(suffix)")
                switch format.sizes {
                case .discrete(let sizes):
                    for size in sizes { lines.append("    \(size)") }
                case let .stepwise(minWidth, maxWidth, stepWidth, minHeight, maxHeight, stepHeight):
                    lines.append("    \(minWidth)x\(minHeight) to \(maxWidth)x\(maxHeight) in steps of \(stepWidth)x\(stepHeight)")
                case .unknown:
                    lines.append("    sizes not enumerated")
                }
            }
        }
        return lines
    }

    /// One row per control: key, id, type, range, step, default, current value, flags, and menu entries.
    /// `values` holds the current values that could be read.
    public static func render(controls: [CameraControl], values: [CameraControlID: Int64] = [:]) -> String {
        guard !controls.isEmpty else { return "no controls" }
        var rows: [[String]] = []
        for control in controls {
            let range: String
            switch control.type {
            case .integer, .integer64, .bitmask, .menu, .integerMenu: range = "\(control.minimum)...\(control.maximum)"
            case .boolean: range = "0...1"
            default: range = ""
            }
            let menu = control.menuItems.map { "\($0.index): \($0.name ?? $0.value.map(String.init) ?? "")" }
                .joined(separator: ", ")
            rows.append([control.key, "\(control.id)", "\(control.type)", range,
                         control.type == .integer || control.type == .integer64 ? "\(control.step)" : "",
                         "\(control.defaultValue)", values[control.id].map(String.init) ?? "",
                         "\(control.flags)", menu])
        }
        return table(header: ["CONTROL", "ID", "TYPE", "RANGE", "STEP", "DEFAULT", "VALUE", "FLAGS", "MENU"], rows: rows)
            .joined(separator: "\n")
    }

    /// Left-aligned columns two spaces apart; trailing spaces trimmed.
    static func table(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                line += cell
                if column < row.count - 1 { line += String(repeating: " ", count: widths[column] - cell.count + 2) }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
