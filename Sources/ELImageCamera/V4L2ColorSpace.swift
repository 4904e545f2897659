import CV4L2
import ELImage

/// The colour fields a driver reports in `v4l2_pix_format`: colorspace, Y'CbCr encoding,
/// quantization and transfer function, each possibly left at 0 ("default").
///
/// `colorSpace(for:)` turns them into the `ColorSpace` ELImage carries with each frame, filling
/// unset fields the way `<linux/videodev2.h>`'s `V4L2_MAP_*_DEFAULT` macros do:
///
/// - colorspace unset: sRGB (`V4L2_MAP_COLORSPACE_DEFAULT` for a device that is neither SDTV nor
///   HDTV, i.e. a webcam), or JPEG for JPEG formats;
/// - encoding unset: BT.709 for REC709 and DCI-P3, BT.2020 for BT2020, else BT.601 (sRGB, JPEG,
///   SMPTE170M, ...); SMPTE 240M is taken as BT.709, its closest;
/// - quantization unset: full range for RGB formats and the JPEG colorspace, limited for Y'CbCr
///   otherwise (so the usual webcam YUYV, colorspace sRGB, is BT.601 limited range);
/// - transfer unset: sRGB for the sRGB and JPEG colorspaces, BT.709 for the broadcast ones.
///
/// One exception: JPEG frames (MJPEG) are JFIF, full range, unless the driver explicitly says
/// limited range; drivers often report sRGB for them, which the macros would read as limited.
public struct V4L2ColorDescription: Hashable, Sendable {
    /// `V4L2_COLORSPACE_*` (0: default).
    public var colorspace: UInt32
    /// `V4L2_YCBCR_ENC_*` (0: default).
    public var ycbcrEncoding: UInt32
    /// `V4L2_QUANTIZATION_*` (0: default).
    public var quantization: UInt32
    /// `V4L2_XFER_FUNC_*` (0: default).
    public var transferFunction: UInt32

    public init(colorspace: UInt32, ycbcrEncoding: UInt32 = 0, quantization: UInt32 = 0, transferFunction: UInt32 = 0) {
        self.colorspace = colorspace
        self.ycbcrEncoding = ycbcrEncoding
        self.quantization = quantization
        self.transferFunction = transferFunction
    }

    /// The fields that describe frames written in `colorSpace` (what an output device is told).
    public init(describing colorSpace: ColorSpace) {
        let (space, encoding): (v4l2_colorspace, v4l2_ycbcr_encoding) = switch colorSpace.matrix {
        case .bt709: (V4L2_COLORSPACE_REC709, V4L2_YCBCR_ENC_709)
        case .bt2020: (V4L2_COLORSPACE_BT2020, V4L2_YCBCR_ENC_BT2020)
        default: (V4L2_COLORSPACE_SMPTE170M, V4L2_YCBCR_ENC_601)
        }
        let quantization = colorSpace.range == .full ? V4L2_QUANTIZATION_FULL_RANGE : V4L2_QUANTIZATION_LIM_RANGE
        self.init(colorspace: space.rawValue, ycbcrEncoding: encoding.rawValue, quantization: quantization.rawValue,
                  transferFunction: V4L2_XFER_FUNC_709.rawValue)
    }

    init(_ format: v4l2_pix_format) {
        self.init(colorspace: format.colorspace, ycbcrEncoding: UInt32(format.ycbcr_enc),
                  quantization: format.quantization, transferFunction: format.xfer_func)
    }

    /// The colour space of frames in `fourCC` described by these fields.
    public func colorSpace(for fourCC: FourCC) -> ColorSpace {
        let isRGB = fourCC == .rgb24
        var space = colorspace
        if space == V4L2_COLORSPACE_DEFAULT.rawValue {
            space = fourCC.isJPEG ? V4L2_COLORSPACE_JPEG.rawValue : V4L2_COLORSPACE_SRGB.rawValue
        }
        var encoding = ycbcrEncoding
        if encoding == V4L2_YCBCR_ENC_DEFAULT.rawValue {
            encoding = fourCC.isJPEG ? V4L2_YCBCR_ENC_601.rawValue : Self.defaultEncoding(space)
        }
        var range: ColorRange
        switch quantization {
        case V4L2_QUANTIZATION_FULL_RANGE.rawValue: range = .full
        case V4L2_QUANTIZATION_LIM_RANGE.rawValue: range = .limited
        default: range = isRGB || fourCC.isJPEG || space == V4L2_COLORSPACE_JPEG.rawValue ? .full : .limited
        }
        if encoding == V4L2_YCBCR_ENC_XV601.rawValue || encoding == V4L2_YCBCR_ENC_XV709.rawValue {
            range = .limited
        }
        var transfer = transferFunction
        if transfer == V4L2_XFER_FUNC_DEFAULT.rawValue { transfer = Self.defaultTransfer(space) }
        return ColorSpace(matrix: Self.matrix(encoding), range: range,
                          primaries: Self.primaries(space), transfer: Self.transfer(transfer, colorspace: space))
    }

    /// `V4L2_MAP_YCBCR_ENC_DEFAULT`.
    static func defaultEncoding(_ colorspace: UInt32) -> UInt32 {
        switch colorspace {
        case V4L2_COLORSPACE_REC709.rawValue, V4L2_COLORSPACE_DCI_P3.rawValue: V4L2_YCBCR_ENC_709.rawValue
        case V4L2_COLORSPACE_BT2020.rawValue: V4L2_YCBCR_ENC_BT2020.rawValue
        case V4L2_COLORSPACE_SMPTE240M.rawValue: V4L2_YCBCR_ENC_SMPTE240M.rawValue
        default: V4L2_YCBCR_ENC_601.rawValue
        }
    }

    /// `V4L2_MAP_XFER_FUNC_DEFAULT`.
    static func defaultTransfer(_ colorspace: UInt32) -> UInt32 {
        switch colorspace {
        case V4L2_COLORSPACE_OPRGB.rawValue: V4L2_XFER_FUNC_OPRGB.rawValue
        case V4L2_COLORSPACE_SMPTE240M.rawValue: V4L2_XFER_FUNC_SMPTE240M.rawValue
        case V4L2_COLORSPACE_DCI_P3.rawValue: V4L2_XFER_FUNC_DCI_P3.rawValue
        case V4L2_COLORSPACE_RAW.rawValue: V4L2_XFER_FUNC_NONE.rawValue
        case V4L2_COLORSPACE_SRGB.rawValue, V4L2_COLORSPACE_JPEG.rawValue: V4L2_XFER_FUNC_SRGB.rawValue
        default: V4L2_XFER_FUNC_709.rawValue
        }
    }

    static func matrix(_ encoding: UInt32) -> ColorMatrix {
        switch encoding {
        case V4L2_YCBCR_ENC_709.rawValue, V4L2_YCBCR_ENC_XV709.rawValue, V4L2_YCBCR_ENC_SMPTE240M.rawValue: .bt709
        case V4L2_YCBCR_ENC_BT2020.rawValue, V4L2_YCBCR_ENC_BT2020_CONST_LUM.rawValue: .bt2020
        default: .bt601
        }
    }

    static func primaries(_ colorspace: UInt32) -> ColorPrimaries {
        switch colorspace {
        case V4L2_COLORSPACE_SMPTE170M.rawValue, V4L2_COLORSPACE_SMPTE240M.rawValue,
             V4L2_COLORSPACE_470_SYSTEM_M.rawValue: .smpte170m
        case V4L2_COLORSPACE_470_SYSTEM_BG.rawValue: .bt470bg
        case V4L2_COLORSPACE_REC709.rawValue, V4L2_COLORSPACE_SRGB.rawValue, V4L2_COLORSPACE_JPEG.rawValue: .bt709
        case V4L2_COLORSPACE_BT2020.rawValue: .bt2020
        default: .unspecified
        }
    }

    static func transfer(_ function: UInt32, colorspace: UInt32) -> TransferCharacteristics {
        switch function {
        case V4L2_XFER_FUNC_709.rawValue:
            switch colorspace {
            case V4L2_COLORSPACE_SMPTE170M.rawValue, V4L2_COLORSPACE_470_SYSTEM_M.rawValue,
                 V4L2_COLORSPACE_470_SYSTEM_BG.rawValue: .smpte170m
            case V4L2_COLORSPACE_BT2020.rawValue: .bt2020
            default: .bt709
            }
        case V4L2_XFER_FUNC_SRGB.rawValue: .srgb
        case V4L2_XFER_FUNC_NONE.rawValue: .linear
        case V4L2_XFER_FUNC_SMPTE2084.rawValue: .pq
        default: .unspecified
        }
    }
}
