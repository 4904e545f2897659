import ELImageCamera
/// A control of an emulated camera: its description and current value.
@dynamicMemberLookup
public struct EmulatedControl: Hashable, Sendable {
    /// What the control is, as the device reports it: id, name, type, range, step, default, fixed
    /// flags (read-only, write-only, ...) and menu entries; its fields read as the emulated
    /// control's own (`control.minimum` is `emulated.minimum`). `inactive` is added to the flags
    /// while the matching automatic mode is on (white balance temperature, exposure time, focus
    /// position), as UVC drivers do.
    public var control: CameraControl
    /// The current value.
    public var value: Int64

    /// - Parameters:
    ///   - id: the V4L2 control ID.
    ///   - name: the name the device reports.
    ///   - type: integer, boolean, menu, ...
    ///   - minimum: the lowest value accepted.
    ///   - maximum: the highest value accepted.
    ///   - step: the distance between accepted values.
    ///   - defaultValue: the value it starts with.
    ///   - flags: fixed flags (read-only, write-only, ...).
    ///   - menu: entries by index (menu controls: names; integer-menu controls: decimal numbers).
    public init(id: CameraControlID, name: String, type: CameraControlType = .integer, minimum: Int64 = 0,
                maximum: Int64 = 255, step: Int64 = 1, defaultValue: Int64 = 0, flags: CameraControlFlags = [],
                menu: [Int64: String] = [:]) {
        let items = menu.sorted { $0.key < $1.key }.map { index, entry in
            type == .integerMenu ? CameraControlMenuItem(index: index, value: Int64(entry) ?? 0)
                                 : CameraControlMenuItem(index: index, name: entry)
        }
        control = CameraControl(id: id, name: name, type: type, minimum: minimum, maximum: maximum, step: step,
                                defaultValue: defaultValue, flags: flags, menuItems: items)
        value = defaultValue
    }

    /// A field of the control's description.
    public subscript<Field>(dynamicMember field: WritableKeyPath<CameraControl, Field>) -> Field {
        get { control[keyPath: field] }
        set { control[keyPath: field] = newValue }
    }

    /// The menu entry at `index`, if the control has one there.
    func menuItem(at index: Int64) -> CameraControlMenuItem? {
        control.menuItems.first { $0.index == index }
    }

    /// The controls of a typical UVC webcam, plus a flash LED and a read-only 64-bit control.
    public static let webcam: [EmulatedControl] = [
        EmulatedControl(id: .brightness, name: "Brightness", minimum: -64, maximum: 64, defaultValue: 0),
        EmulatedControl(id: .contrast, name: "Contrast", minimum: 0, maximum: 64, defaultValue: 32),
        EmulatedControl(id: .saturation, name: "Saturation", minimum: 0, maximum: 128, defaultValue: 64),
        EmulatedControl(id: .hue, name: "Hue", minimum: -40, maximum: 40, defaultValue: 0),
        EmulatedControl(id: .autoWhiteBalance, name: "White Balance, Automatic", type: .boolean, maximum: 1, defaultValue: 1),
        EmulatedControl(id: .gain, name: "Gain", minimum: 0, maximum: 100, defaultValue: 0),
        EmulatedControl(id: .powerLineFrequency, name: "Power Line Frequency", type: .menu, maximum: 2, defaultValue: 1,
                        menu: [0: "Disabled", 1: "50 Hz", 2: "60 Hz"]),
        EmulatedControl(id: .whiteBalanceTemperature, name: "White Balance Temperature", minimum: 2800, maximum: 6500,
                        step: 10, defaultValue: 4600),
        EmulatedControl(id: .sharpness, name: "Sharpness", minimum: 0, maximum: 6, defaultValue: 3),
        EmulatedControl(id: .exposureAuto, name: "Auto Exposure", type: .menu, minimum: 0, maximum: 3, defaultValue: 3,
                        menu: [1: "Manual Mode", 3: "Aperture Priority Mode"]),
        EmulatedControl(id: .exposureAbsolute, name: "Exposure Time, Absolute", minimum: 3, maximum: 2047, defaultValue: 250),
        EmulatedControl(id: .focusAbsolute, name: "Focus, Absolute", minimum: 0, maximum: 250, step: 5, defaultValue: 0),
        EmulatedControl(id: .focusAuto, name: "Focus, Automatic Continuous", type: .boolean, maximum: 1, defaultValue: 1),
        EmulatedControl(id: .zoomAbsolute, name: "Zoom, Absolute", minimum: 100, maximum: 500, defaultValue: 100),
        EmulatedControl(id: .flashLEDMode, name: "LED Mode", type: .menu, maximum: 2, defaultValue: 0,
                        menu: [0: "Off", 1: "Flash", 2: "Torch"]),
        EmulatedControl(id: CameraControlID(rawValue: 0x009F_0902), name: "Pixel Rate", type: .integer64,
                        minimum: 0, maximum: 1 << 40, defaultValue: 148_500_000_000, flags: .readOnly),
    ]

    /// `inactive` while the automatic mode that overrides this control is on.
    static func isInactive(_ id: CameraControlID, values: [CameraControlID: Int64]) -> Bool {
        switch id {
        case .whiteBalanceTemperature: values[.autoWhiteBalance] == 1
        case .exposureAbsolute: values[.exposureAuto].map { $0 != 1 } ?? false
        case .focusAbsolute: values[.focusAuto] == 1
        default: false
        }
    }
}
