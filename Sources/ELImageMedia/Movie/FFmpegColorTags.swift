import CFFmpeg
import ELImage

/// The colour tags FFmpeg reads from a stream or frame (H.273 codes), turned into ELImage's types.
struct FFmpegColorTags {
    var matrix: AVColorSpace
    var range: AVColorRange
    var primaries: AVColorPrimaries
    var transfer: AVColorTransferCharacteristic
    var chromaLocation: AVChromaLocation
    /// The decoder's pixel format; `yuvj*` formats are full range whatever the range tag says.
    var pixelFormat: AVPixelFormat

    init(frame: UnsafePointer<AVFrame>) {
        matrix = frame.pointee.colorspace
        range = frame.pointee.color_range
        primaries = frame.pointee.color_primaries
        transfer = frame.pointee.color_trc
        chromaLocation = frame.pointee.chroma_location
        pixelFormat = AVPixelFormat(rawValue: frame.pointee.format)
    }

    init(parameters: UnsafePointer<AVCodecParameters>) {
        matrix = parameters.pointee.color_space
        range = parameters.pointee.color_range
        primaries = parameters.pointee.color_primaries
        transfer = parameters.pointee.color_trc
        chromaLocation = parameters.pointee.chroma_location
        pixelFormat = AVPixelFormat(rawValue: parameters.pointee.format)
    }

    /// Whether the pixel format is one of the deprecated full-range `yuvj*` formats (JPEG, MJPEG).
    var isJPEGFormat: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P,
         AV_PIX_FMT_YUVJ411P].contains(pixelFormat)
    }

    /// The colour space of a picture `height` lines high. Untagged fields take the usual defaults:
    /// BT.601 below 720 lines, BT.709 from 720 up (`ColorSpace.defaultForVideo(height:)`), limited
    /// range (full for `yuvj*`), and the matrix's own primaries and transfer.
    func colorSpace(height: Int) -> ColorSpace {
        let fallback = ColorSpace.defaultForVideo(height: height)
        let colorMatrix: ColorMatrix
        switch matrix {
        case AVCOL_SPC_BT709: colorMatrix = .bt709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC: colorMatrix = .bt601
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: colorMatrix = .bt2020
        default: colorMatrix = fallback.matrix
        }
        let colorRange: ColorRange = range == AVCOL_RANGE_JPEG || (range != AVCOL_RANGE_MPEG && isJPEGFormat) ? .full : .limited
        // ELImage's enums use the H.273 codes, as FFmpeg does; "unspecified" takes the matrix's default.
        let colorPrimaries = ColorPrimaries(rawValue: Int(primaries.rawValue)).flatMap { $0 == .unspecified ? nil : $0 }
        let transferCharacteristics = TransferCharacteristics(rawValue: Int(transfer.rawValue))
            .flatMap { $0 == .unspecified ? nil : $0 }
        return ColorSpace(matrix: colorMatrix, range: colorRange, primaries: colorPrimaries,
                          transfer: transferCharacteristics)
    }

    /// Where chroma sits. Untagged video uses the MPEG-2/H.264 default, left (JPEG formats: centre).
    var chromaSiting: ChromaLocation {
        switch chromaLocation {
        case AVCHROMA_LOC_LEFT, AVCHROMA_LOC_BOTTOMLEFT: .left
        case AVCHROMA_LOC_CENTER, AVCHROMA_LOC_TOP, AVCHROMA_LOC_BOTTOM: .center
        case AVCHROMA_LOC_TOPLEFT: .topLeft
        default: isJPEGFormat ? .center : .left
        }
    }
}
