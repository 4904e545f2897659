import ELImage

/// How exposure is set.
public enum ExposureSetting: Hashable, Sendable {
    /// The camera chooses (V4L2 "auto", or "aperture priority" on webcams that offer only that).
    case automatic
    /// A fixed exposure time in the driver's unit (100 µs for `exposure_time_absolute`).
    case manual(exposureTime: Int64)
}

/// How focus is set.
public enum FocusSetting: Hashable, Sendable {
    /// Continuous autofocus.
    case automatic
    /// A fixed focus position in the driver's range (`focus_absolute`).
    case manual(position: Int64)
}

/// How white balance is set.
public enum WhiteBalanceSetting: Hashable, Sendable {
    case automatic
    /// A fixed colour temperature in kelvin.
    case temperature(kelvin: Int64)
}

/// The mains frequency the camera avoids flicker for (`power_line_frequency` menu values).
public enum PowerLineFrequency: Int64, Hashable, Sendable, CaseIterable {
    case disabled = 0
    case hz50 = 1
    case hz60 = 2
    case automatic = 3
}

extension CameraControlling {
    /// Sets automatic or manual exposure; manual also sets the exposure time.
    public func setExposure(_ exposure: ExposureSetting) throws {
        let mode = try control(.exposureAuto)
        let offered = Set(mode.menuItems.map(\.index))
        switch exposure {
        case .automatic:
            // V4L2_EXPOSURE_AUTO (0), else APERTURE_PRIORITY (3, what UVC webcams call auto), else SHUTTER_PRIORITY (2).
            guard let value = [Int64(0), 3, 2].first(where: offered.contains) else {
                throw ELImageError.invalidInput(what: "control '\(mode.name)' offers no automatic exposure mode",
                                                hint: "set the exposure manually")
            }
            try setValue(value, for: .exposureAuto)
        case .manual(let time):
            guard offered.contains(1) else {
                throw ELImageError.invalidInput(what: "control '\(mode.name)' offers no manual exposure mode",
                                                hint: "this camera only exposes automatically")
            }
            let absolute = try control(.exposureAbsolute)
            try absolute.validate(time, path: devicePath)  // check before leaving automatic mode
            try setValue(1, for: .exposureAuto)
            try setValue(time, for: .exposureAbsolute)
        }
    }

    /// Sets continuous autofocus, or turns it off and sets a focus position.
    public func setFocus(_ focus: FocusSetting) throws {
        switch focus {
        case .automatic:
            try setValue(1, for: .focusAuto)
        case .manual(let position):
            let absolute = try control(.focusAbsolute)
            try absolute.validate(position, path: devicePath)
            if (try? control(.focusAuto)) != nil { try setValue(0, for: .focusAuto) }
            try setValue(position, for: .focusAbsolute)
        }
    }

    /// Sets automatic white balance, or turns it off and sets a colour temperature.
    public func setWhiteBalance(_ whiteBalance: WhiteBalanceSetting) throws {
        switch whiteBalance {
        case .automatic:
            try setValue(1, for: .autoWhiteBalance)
        case .temperature(let kelvin):
            let temperature = try control(.whiteBalanceTemperature)
            try temperature.validate(kelvin, path: devicePath)
            if (try? control(.autoWhiteBalance)) != nil { try setValue(0, for: .autoWhiteBalance) }
            try setValue(kelvin, for: .whiteBalanceTemperature)
        }
    }

    /// Sets the optical or digital zoom (`zoom_absolute`).
    public func setZoom(_ zoom: Int64) throws {
        try setValue(zoom, for: .zoomAbsolute)
    }

    /// Sets the anti-flicker filter.
    public func setPowerLineFrequency(_ frequency: PowerLineFrequency) throws {
        try setValue(frequency.rawValue, for: .powerLineFrequency)
    }

    /// Turns the torch (a flash LED lit continuously) or the camera's LED on or off: the flash LED
    /// mode where the device has one, else a menu control whose name has "LED" with "On"/"Off"
    /// entries (UVC webcams' "LED1 Mode").
    public func setTorch(_ on: Bool) throws {
        if (try? control(.flashLEDMode)) != nil {
            try setValue(on ? 2 : 0, for: .flashLEDMode)  // V4L2_FLASH_LED_MODE_TORCH / _NONE
            return
        }
        let wanted = on ? "on" : "off"
        for control in try controls() where control.type == .menu && control.name.lowercased().contains("led") {
            if let item = control.menuItems.first(where: { $0.name?.lowercased() == wanted }) {
                try setValue(item.index, for: control.id)
                return
            }
        }
        throw ELImageError.invalidInput(what: "the device has no torch, flash or LED control",
                                        hint: "list its controls with `elimage controls <device>`")
    }
}
