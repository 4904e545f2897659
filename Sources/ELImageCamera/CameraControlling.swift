import CV4L2
import ELImage
import Glibc

/// Reading and setting a camera's controls. `CameraDevice` and `Camera` both offer it; the typed
/// helpers (`setExposure`, `setFocus`, `setWhiteBalance`, `setZoom`, `setPowerLineFrequency`,
/// `setTorch`) and name lookup come with it.
public protocol CameraControlling: Sendable {
    /// The device node the controls belong to, for messages.
    var devicePath: String { get }

    /// Every control the device offers, in the driver's order (control classes and disabled
    /// controls left out), with menu entries.
    func controls() throws -> [CameraControl]

    /// The control `id`.
    /// - Throws: `ELImageError.invalidInput` when the device has no such control.
    func control(_ id: CameraControlID) throws -> CameraControl

    /// The current value of control `id`.
    func value(of id: CameraControlID) throws -> Int64

    /// Sets control `id`. The value is checked against the control's type, range, step and menu
    /// first: an out-of-range value, a read-only or a missing control is an error, never a no-op.
    func setValue(_ value: Int64, for id: CameraControlID) throws
}

extension CameraControlling {
    /// The control called `name`: its driver name ignoring case ("White Balance Temperature") or
    /// its `v4l2-ctl` key ("white_balance_temperature").
    public func control(named name: String) throws -> CameraControl {
        let list = try controls()
        if let found = list.first(where: { $0.matches(name) }) { return found }
        let known = list.map(\.key).joined(separator: ", ")
        throw ELImageError.invalidInput(what: "no control named '\(name)'",
                                        hint: known.isEmpty ? "the device has no controls" : "the device has: \(known)")
    }

    /// The value of the control called `name`.
    public func value(ofControlNamed name: String) throws -> Int64 {
        try value(of: control(named: name).id)
    }

    /// Sets the control called `name`.
    public func setValue(_ value: Int64, forControlNamed name: String) throws {
        try setValue(value, for: control(named: name).id)
    }
}

extension CameraDevice: CameraControlling {
    public var devicePath: String { path }

    public func controls() throws -> [CameraControl] {
        var list: [CameraControl] = []
        var next: UInt32 = 0
        var extendedQuery = true
        while true {
            let found: CameraControl?
            do throws(DeviceErrno) {
                found = try queryControl(next | UInt32(V4L2_CTRL_FLAG_NEXT_CTRL), extended: extendedQuery)
            } catch {
                // Drivers without VIDIOC_QUERY_EXT_CTRL answer ENOTTY (or EINVAL straight away):
                // enumerate again with VIDIOC_QUERYCTRL.
                if extendedQuery, list.isEmpty, error.code == ENOTTY || error.code == EINVAL {
                    extendedQuery = false
                    continue
                }
                if error.code == EINVAL { break }
                throw DeviceErrors.failure(error, "list controls (\(extendedQuery ? "VIDIOC_QUERY_EXT_CTRL" : "VIDIOC_QUERYCTRL")) of",
                                           path: path)
            }
            guard let control = found else { break }
            next = control.id.rawValue
            if control.type == .controlClass || control.flags.contains(.disabled) { continue }
            list.append(control)
        }
        return list
    }

    public func control(_ id: CameraControlID) throws -> CameraControl {
        do throws(DeviceErrno) {
            do throws(DeviceErrno) {
                if let control = try queryControl(id.rawValue, extended: true) { return control }
            } catch {
                guard error.code == ENOTTY else { throw error }
            }
            if let control = try queryControl(id.rawValue, extended: false) { return control }
            throw DeviceErrno(EINVAL)
        } catch {
            if error.code == EINVAL { throw missing(id) }
            throw DeviceErrors.failure(error, "query control \(id) of", path: path)
        }
    }

    public func value(of id: CameraControlID) throws -> Int64 {
        let control = try control(id)
        if control.flags.contains(.writeOnly) || control.type == .button {
            throw ELImageError.invalidInput(what: "\(path): control '\(control.name)' (\(id)) is write-only",
                                            hint: "it can be set, not read")
        }
        do throws(DeviceErrno) {
            if control.type == .integer64 { return try extendedValue(id) }
            var request = v4l2_control(id: id.rawValue, value: 0)
            try call(VIDIOC.getControl, &request)
            return Int64(request.value)
        } catch {
            throw DeviceErrors.failure(error, "read control '\(control.name)' (\(id)) of", path: path)
        }
    }

    public func setValue(_ value: Int64, for id: CameraControlID) throws {
        let control = try control(id)
        try control.validate(value, path: path)
        do throws(DeviceErrno) {
            if control.type == .integer64 {
                try setExtendedValue(value, for: id)
            } else {
                var request = v4l2_control(id: id.rawValue, value: Int32(truncatingIfNeeded: value))
                try call(VIDIOC.setControl, &request)
            }
        } catch {
            let operation = "set control '\(control.name)' (\(id)) to \(value) on"
            switch error.code {
            case ERANGE:
                throw ELImageError.io(file: path, operation: operation, errno: ERANGE,
                                      hint: "errno ERANGE: the driver refuses the value; the control takes \(control.minimum)...\(control.maximum)")
            case EACCES:
                throw ELImageError.io(file: path, operation: operation, errno: EACCES,
                                      hint: "errno EACCES: the control is read-only or inactive now (e.g. exposure time while exposure is automatic); switch the automatic mode off first")
            case EBUSY:
                throw ELImageError.io(file: path, operation: operation, errno: EBUSY,
                                      hint: "errno EBUSY: the control cannot change now (it may be grabbed while streaming); stop the camera, set it, start again")
            default:
                throw DeviceErrors.failure(error, operation, path: path)
            }
        }
    }

    // MARK: Raw control queries

    /// Queries one control (`id` may carry `V4L2_CTRL_FLAG_NEXT_CTRL`); `nil` never happens for a
    /// control that exists: a missing one throws EINVAL.
    private func queryControl(_ id: UInt32, extended: Bool) throws(DeviceErrno) -> CameraControl? {
        var control: CameraControl
        if extended {
            var query = v4l2_query_ext_ctrl()
            query.id = id
            try call(VIDIOC.queryExtendedControl, &query)
            control = CameraControl(
                id: CameraControlID(rawValue: query.id), name: CString.read(query.name), type: CameraControlType(query.type),
                minimum: query.minimum, maximum: query.maximum, step: Int64(clamping: query.step),
                defaultValue: query.default_value, flags: CameraControlFlags(rawValue: query.flags))
        } else {
            var query = v4l2_queryctrl()
            query.id = id
            try call(VIDIOC.queryControl, &query)
            control = CameraControl(
                id: CameraControlID(rawValue: query.id), name: CString.read(query.name), type: CameraControlType(query.type),
                minimum: Int64(query.minimum), maximum: Int64(query.maximum), step: Int64(query.step),
                defaultValue: Int64(query.default_value), flags: CameraControlFlags(rawValue: query.flags))
        }
        if control.type == .menu || control.type == .integerMenu {
            control.menuItems = try menuItems(of: control)
        }
        return control
    }

    private func menuItems(of control: CameraControl) throws(DeviceErrno) -> [CameraControlMenuItem] {
        guard control.minimum >= 0, control.maximum >= control.minimum, control.maximum - control.minimum < 256 else {
            return []
        }
        var items: [CameraControlMenuItem] = []
        for index in control.minimum...control.maximum {
            var query = v4l2_querymenu()
            query.id = control.id.rawValue
            query.index = UInt32(index)
            do throws(DeviceErrno) {
                try call(VIDIOC.queryMenu, &query)
            } catch {
                if error.code == EINVAL { continue }  // drivers may skip entries
                throw error
            }
            items.append(control.type == .menu
                ? CameraControlMenuItem(index: index, name: CString.read(query.name))
                : CameraControlMenuItem(index: index, value: query.value))
        }
        return items
    }

    private func extendedValue(_ id: CameraControlID) throws(DeviceErrno) -> Int64 {
        var control = v4l2_ext_control()
        control.id = id.rawValue
        try withExtendedControls(&control, request: VIDIOC.getExtendedControls)
        return control.value64
    }

    private func setExtendedValue(_ value: Int64, for id: CameraControlID) throws(DeviceErrno) {
        var control = v4l2_ext_control()
        control.id = id.rawValue
        control.value64 = value
        try withExtendedControls(&control, request: VIDIOC.setExtendedControls)
    }

    private func withExtendedControls(_ control: inout v4l2_ext_control, request: UInt) throws(DeviceErrno) {
        let result: Result<Void, DeviceErrno> = withUnsafeMutablePointer(to: &control) { pointer in
            var controls = v4l2_ext_controls()
            controls.which = UInt32(V4L2_CTRL_WHICH_CUR_VAL)
            controls.count = 1
            controls.controls = pointer
            do throws(DeviceErrno) {
                try call(request, &controls)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    private func missing(_ id: CameraControlID) -> ELImageError {
        let name = CameraControlID.knownNames[id].map { "'\($0)' " } ?? ""
        return .invalidInput(what: "\(path) has no control \(name)(\(id))",
                             hint: "the device does not support it; list its controls with `elimage controls \(path)`")
    }
}

extension CameraControlID {
    /// Names of the ids with a static property, for messages.
    static let knownNames: [CameraControlID: String] = [
        .brightness: "brightness", .contrast: "contrast", .saturation: "saturation", .hue: "hue",
        .autoWhiteBalance: "white_balance_automatic", .gamma: "gamma", .autoGain: "gain_automatic", .gain: "gain",
        .powerLineFrequency: "power_line_frequency", .whiteBalanceTemperature: "white_balance_temperature",
        .sharpness: "sharpness", .backlightCompensation: "backlight_compensation",
        .exposureAuto: "auto_exposure", .exposureAbsolute: "exposure_time_absolute",
        .exposureAutoPriority: "exposure_dynamic_framerate", .panAbsolute: "pan_absolute",
        .tiltAbsolute: "tilt_absolute", .focusAbsolute: "focus_absolute",
        .focusAuto: "focus_automatic_continuous", .zoomAbsolute: "zoom_absolute",
        .flashLEDMode: "led_mode", .torchIntensity: "torch_intensity_current",
    ]
}
