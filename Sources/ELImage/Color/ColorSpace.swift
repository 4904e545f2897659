/// How Y'CbCr values relate to RGB, and what the RGB means: carried with every frame from the
/// source (camera, file header) to the sinks (encoder VUI, container tags).
public struct ColorSpace: Sendable, Hashable, CustomStringConvertible {
    public var matrix: ColorMatrix
    public var range: ColorRange
    public var primaries: ColorPrimaries
    public var transfer: TransferCharacteristics
    /// The mastering display and light levels of an HDR picture (PQ or HLG), when its source says.
    public var hdr: HDRMetadata?

    public init(matrix: ColorMatrix, range: ColorRange,
                primaries: ColorPrimaries? = nil, transfer: TransferCharacteristics? = nil, hdr: HDRMetadata? = nil) {
        self.matrix = matrix
        self.range = range
        self.primaries = primaries ?? matrix.defaultPrimaries
        self.transfer = transfer ?? matrix.defaultTransfer
        self.hdr = hdr
    }

    /// Whether the transfer is an HDR one (PQ or HLG).
    public var isHDR: Bool { transfer == .pq || transfer == .hlg }

    /// BT.601 (SD), limited range: what untagged SD video and most webcams' YUYV mean.
    public static let bt601 = ColorSpace(matrix: .bt601, range: .limited)
    /// BT.709 (HD), limited range.
    public static let bt709 = ColorSpace(matrix: .bt709, range: .limited)
    /// BT.2020 non-constant luminance, limited range.
    public static let bt2020 = ColorSpace(matrix: .bt2020, range: .limited)
    /// JPEG/JFIF: BT.601 matrix, full range.
    public static let jpeg = ColorSpace(matrix: .bt601, range: .full, primaries: .bt709, transfer: .srgb)

    /// sRGB pictures (PNG, JPEG decoded to RGB, synthetic images): BT.709 primaries, sRGB transfer.
    /// The matrix and range say how to make Y'CbCr of it when nothing else is asked for.
    public static let srgb = ColorSpace(matrix: .bt709, range: .limited, primaries: .bt709, transfer: .srgb)

    /// The usual guess for untagged video: BT.601 below 720 lines, BT.709 from 720 up, limited range.
    public static func defaultForVideo(height: Int) -> ColorSpace {
        height >= 720 ? .bt709 : .bt601
    }

    public var description: String { "\(matrix) \(range) range (primaries \(primaries), transfer \(transfer))" }
}

/// The Y'CbCr matrix, defined by its luma coefficients Kr and Kb.
public enum ColorMatrix: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case bt601, bt709, bt2020

    /// Kr and Kb; Kg = 1 - Kr - Kb.
    public var coefficients: (kr: Double, kb: Double) {
        switch self {
        case .bt601: (0.299, 0.114)
        case .bt709: (0.2126, 0.0722)
        case .bt2020: (0.2627, 0.0593)
        }
    }

    var defaultPrimaries: ColorPrimaries {
        switch self {
        case .bt601: .smpte170m
        case .bt709: .bt709
        case .bt2020: .bt2020
        }
    }

    var defaultTransfer: TransferCharacteristics {
        switch self {
        case .bt601: .smpte170m
        case .bt709: .bt709
        case .bt2020: .bt2020
        }
    }

    public var description: String {
        switch self {
        case .bt601: "BT.601"
        case .bt709: "BT.709"
        case .bt2020: "BT.2020"
        }
    }
}

/// Quantization range of 8-bit samples.
public enum ColorRange: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// "Video"/"TV"/"MPEG" range: Y 16...235, Cb/Cr 16...240.
    case limited
    /// "PC"/"JPEG" range: 0...255.
    case full

    public var description: String { rawValue }
}

/// Colour primaries (the RGB gamut), as tagged in H.264 VUI and containers (ITU-T H.273 codes).
public enum ColorPrimaries: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case bt709 = 1
    case unspecified = 2
    case bt470bg = 5
    case smpte170m = 6
    case bt2020 = 9

    public var description: String {
        switch self {
        case .bt709: "bt709"
        case .unspecified: "unspecified"
        case .bt470bg: "bt470bg"
        case .smpte170m: "smpte170m"
        case .bt2020: "bt2020"
        }
    }
}

/// Transfer characteristics (the "gamma"), as tagged in H.264 VUI and containers (H.273 codes).
public enum TransferCharacteristics: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case bt709 = 1
    case unspecified = 2
    case smpte170m = 6
    case linear = 8
    case srgb = 13
    case bt2020 = 14
    case pq = 16
    case hlg = 18

    public var description: String {
        switch self {
        case .bt709: "bt709"
        case .unspecified: "unspecified"
        case .smpte170m: "smpte170m"
        case .linear: "linear"
        case .srgb: "iec61966-2-1"
        case .bt2020: "bt2020-10"
        case .pq: "smpte2084"
        case .hlg: "arib-std-b67"
        }
    }
}
