import CV4L2
import ELImage

/// A V4L2 control id (`V4L2_CID_*`), with names for the common camera controls.
public struct CameraControlID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `V4L2_CID_*` number.
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    private static let user: UInt32 = 0x0098_0900      // V4L2_CID_BASE
    private static let camera: UInt32 = 0x009A_0900    // V4L2_CID_CAMERA_CLASS_BASE
    private static let flash: UInt32 = 0x009C_0900     // V4L2_CID_FLASH_CLASS_BASE

    public static let brightness = CameraControlID(rawValue: user + 0)
    public static let contrast = CameraControlID(rawValue: user + 1)
    public static let saturation = CameraControlID(rawValue: user + 2)
    public static let hue = CameraControlID(rawValue: user + 3)
    /// Automatic white balance on/off (boolean).
    public static let autoWhiteBalance = CameraControlID(rawValue: user + 12)
    /// Gamma correction.
    public static let gamma = CameraControlID(rawValue: user + 16)
    /// Automatic gain on/off (boolean).
    public static let autoGain = CameraControlID(rawValue: user + 18)
    /// Sensor gain (used while automatic gain is off).
    public static let gain = CameraControlID(rawValue: user + 19)
    /// Mains frequency filter (menu: 0 disabled, 1 50 Hz, 2 60 Hz, 3 auto).
    public static let powerLineFrequency = CameraControlID(rawValue: user + 24)
    /// White balance colour temperature in kelvin (used while automatic white balance is off).
    public static let whiteBalanceTemperature = CameraControlID(rawValue: user + 26)
    public static let sharpness = CameraControlID(rawValue: user + 27)
    public static let backlightCompensation = CameraControlID(rawValue: user + 28)
    /// Exposure mode (menu: 0 auto, 1 manual, 2 shutter priority, 3 aperture priority).
    public static let exposureAuto = CameraControlID(rawValue: camera + 1)
    /// Exposure time in 100 µs units (used in manual exposure).
    public static let exposureAbsolute = CameraControlID(rawValue: camera + 2)
    /// Whether the frame rate may drop to lengthen exposure (boolean).
    public static let exposureAutoPriority = CameraControlID(rawValue: camera + 3)
    /// Pan position in arc seconds (PTZ cameras).
    public static let panAbsolute = CameraControlID(rawValue: camera + 8)
    /// Tilt position in arc seconds (PTZ cameras).
    public static let tiltAbsolute = CameraControlID(rawValue: camera + 9)
    /// Focus distance (used while continuous autofocus is off).
    public static let focusAbsolute = CameraControlID(rawValue: camera + 10)
    /// Continuous autofocus on/off (boolean).
    public static let focusAuto = CameraControlID(rawValue: camera + 12)
    /// Optical or digital zoom, in the driver's units.
    public static let zoomAbsolute = CameraControlID(rawValue: camera + 13)
    /// Flash LED mode (menu: 0 none, 1 flash, 2 torch).
    public static let flashLEDMode = CameraControlID(rawValue: flash + 1)
    /// Torch intensity in mA.
    public static let torchIntensity = CameraControlID(rawValue: flash + 8)

    /// "0x00980900".
    public var description: String {
        let hex = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
}

/// The kind of value a control holds (`V4L2_CTRL_TYPE_*`).
public enum CameraControlType: Hashable, Sendable, CustomStringConvertible {
    case integer, boolean, menu, integerMenu, button, integer64, bitmask, string, controlClass
    /// A type ELImage does not interpret (compound controls), with its V4L2 number.
    case other(UInt32)

    init(_ type: UInt32) {
        switch type {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: self = .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: self = .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: self = .menu
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: self = .integerMenu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: self = .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: self = .integer64
        case V4L2_CTRL_TYPE_BITMASK.rawValue: self = .bitmask
        case V4L2_CTRL_TYPE_STRING.rawValue: self = .string
        case V4L2_CTRL_TYPE_CTRL_CLASS.rawValue: self = .controlClass
        default: self = .other(type)
        }
    }

    /// The V4L2 number (`V4L2_CTRL_TYPE_*`).
    package var rawValue: UInt32 {
        switch self {
        case .integer: V4L2_CTRL_TYPE_INTEGER.rawValue
        case .boolean: V4L2_CTRL_TYPE_BOOLEAN.rawValue
        case .menu: V4L2_CTRL_TYPE_MENU.rawValue
        case .integerMenu: V4L2_CTRL_TYPE_INTEGER_MENU.rawValue
        case .button: V4L2_CTRL_TYPE_BUTTON.rawValue
        case .integer64: V4L2_CTRL_TYPE_INTEGER64.rawValue
        case .bitmask: V4L2_CTRL_TYPE_BITMASK.rawValue
        case .string: V4L2_CTRL_TYPE_STRING.rawValue
        case .controlClass: V4L2_CTRL_TYPE_CTRL_CLASS.rawValue
        case .other(let value): value
        }
    }

    public var description: String {
        switch self {
        case .integer: "int"
        case .boolean: "bool"
        case .menu: "menu"
        case .integerMenu: "intmenu"
        case .button: "button"
        case .integer64: "int64"
        case .bitmask: "bitmask"
        case .string: "string"
        case .controlClass: "class"
        case .other(let value): "type \(value)"
        }
    }
}

/// A control's flags (`V4L2_CTRL_FLAG_*`).
public struct CameraControlFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let disabled = CameraControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_DISABLED))
    /// Temporarily not changeable, e.g. while streaming.
    public static let grabbed = CameraControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_GRABBED))
    public static let readOnly = CameraControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_READ_ONLY))
    /// Has no effect now, e.g. exposure time while exposure is automatic.
    public static let inactive = CameraControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_INACTIVE))
    public static let writeOnly = CameraControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_WRITE_ONLY))
    /// Changes by itself (e.g. gain under automatic exposure).
    public static let volatile = CameraControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_VOLATILE))

    public var description: String {
        let names: [(CameraControlFlags, String)] = [
            (.disabled, "disabled"), (.grabbed, "grabbed"), (.readOnly, "read-only"), (.inactive, "inactive"),
            (.writeOnly, "write-only"), (.volatile, "volatile"),
        ]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: ",")
    }
}

/// One entry of a menu control (`VIDIOC_QUERYMENU`).
public struct CameraControlMenuItem: Hashable, Sendable {
    /// The value to set to choose this entry.
    public var index: Int64
    /// The entry's name (menu controls).
    public var name: String?
    /// The entry's number (integer-menu controls).
    public var value: Int64?

    public init(index: Int64, name: String? = nil, value: Int64? = nil) {
        self.index = index
        self.name = name
        self.value = value
    }
}

/// A device control: what it is and which values it takes.
public struct CameraControl: Hashable, Sendable, CustomStringConvertible {
    /// The V4L2 control id.
    public var id: CameraControlID
    /// The driver's name, e.g. "White Balance Temperature".
    public var name: String
    /// The kind of value it holds.
    public var type: CameraControlType
    /// The smallest value (for menus, the first index).
    public var minimum: Int64
    /// The largest value (for menus, the last index).
    public var maximum: Int64
    /// The distance between valid values (1 for most controls).
    public var step: Int64
    /// The value after a reset.
    public var defaultValue: Int64
    /// What can be done with it now (read-only, inactive, ...).
    public var flags: CameraControlFlags
    /// The entries of a menu or integer-menu control (indices the driver skips are absent).
    public var menuItems: [CameraControlMenuItem]

    public init(id: CameraControlID, name: String, type: CameraControlType, minimum: Int64, maximum: Int64,
                step: Int64, defaultValue: Int64, flags: CameraControlFlags = [], menuItems: [CameraControlMenuItem] = []) {
        self.id = id
        self.name = name
        self.type = type
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.flags = flags
        self.menuItems = menuItems
    }

    /// The name as `v4l2-ctl` writes it: lower case, runs of other characters as one underscore,
    /// e.g. "White Balance Temperature" → "white_balance_temperature".
    public var key: String { Self.key(for: name) }

    static func key(for name: String) -> String {
        var key = ""
        var pendingUnderscore = false
        for character in name.lowercased() {
            if character.isLetter || character.isNumber, character.isASCII {
                if pendingUnderscore, !key.isEmpty { key.append("_") }
                pendingUnderscore = false
                key.append(character)
            } else {
                pendingUnderscore = true
            }
        }
        return key
    }

    /// True when `name` names this control: its `key`, or its name ignoring case.
    public func matches(_ name: String) -> Bool {
        name.lowercased() == self.name.lowercased() || Self.key(for: name) == key
    }

    /// Checks that `value` can be set, before the driver sees it.
    /// - Throws: `ELImageError.invalidInput` saying what is wrong and what is allowed.
    func validate(_ value: Int64, path: String) throws {
        if flags.contains(.readOnly) {
            throw ELImageError.invalidInput(what: "\(path): control '\(name)' (\(id)) is read-only",
                                            hint: "it can be read, not set")
        }
        if flags.contains(.disabled) {
            throw ELImageError.invalidInput(what: "\(path): control '\(name)' (\(id)) is disabled",
                                            hint: "the driver does not offer it now")
        }
        switch type {
        case .button:
            return
        case .boolean:
            guard value == 0 || value == 1 else {
                throw ELImageError.invalidInput(what: "\(path): \(value) is not a value of boolean control '\(name)'",
                                                hint: "use 0 (off) or 1 (on)")
            }
        case .menu, .integerMenu:
            guard menuItems.contains(where: { $0.index == value }) else {
                let choices = menuItems.map { item in
                    "\(item.index) (\(item.name ?? item.value.map(String.init) ?? "?"))"
                }.joined(separator: ", ")
                throw ELImageError.invalidInput(what: "\(path): \(value) is not an entry of menu control '\(name)'",
                                                hint: "choose one of \(choices)")
            }
        case .integer, .integer64, .bitmask:
            guard value >= minimum, value <= maximum else {
                throw ELImageError.invalidInput(
                    what: "\(path): \(value) is out of range for control '\(name)' (\(minimum)...\(maximum))",
                    hint: "use a value from \(minimum) to \(maximum)" + (step > 1 ? " in steps of \(step)" : ""))
            }
            if type != .bitmask, step > 1, (value - minimum) % step != 0 {
                let below = value - (value - minimum) % step
                throw ELImageError.invalidInput(
                    what: "\(path): \(value) is not a step of control '\(name)' (\(minimum)...\(maximum) step \(step))",
                    hint: "use \(below) or \(min(below + step, maximum))")
            }
        case .string, .controlClass, .other:
            throw ELImageError.invalidInput(what: "\(path): control '\(name)' is a \(type) control",
                                            hint: "ELImage sets integer, boolean, menu and button controls")
        }
    }

    public var description: String {
        var text = "\(key) (\(id)) \(type)"
        switch type {
        case .integer, .integer64:
            text += " \(minimum)...\(maximum)" + (step > 1 ? " step \(step)" : "") + " default \(defaultValue)"
        case .boolean, .menu, .integerMenu:
            text += " default \(defaultValue)"
        default:
            break
        }
        if !flags.isEmpty { text += " [\(flags)]" }
        return text
    }
}
