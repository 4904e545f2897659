import ELImage
import Foundation

/// A V4L2 pixel format code: four ASCII characters packed little-endian (`v4l2_fourcc`).
public struct FourCC: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code for up to four characters, e.g. `FourCC("YUYV")`; shorter codes are padded with spaces.
    public init(_ code: String) {
        let bytes = Array(code.utf8.prefix(4)) + Array(repeating: UInt8(ascii: " "), count: max(0, 4 - code.utf8.count))
        rawValue = bytes.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// Packed 4:2:2 Y0 U Y1 V, what most webcams send uncompressed.
    public static let yuyv = FourCC("YUYV")
    /// Packed 4:2:2 U Y0 V Y1.
    public static let uyvy = FourCC("UYVY")
    /// 4:2:0, a Y plane then interleaved Cb/Cr.
    public static let nv12 = FourCC("NV12")
    /// 4:2:0, a Y plane then interleaved Cr/Cb.
    public static let nv21 = FourCC("NV21")
    /// Planar 4:2:0 Y, Cb, Cr (I420, `V4L2_PIX_FMT_YUV420`).
    public static let yu12 = FourCC("YU12")
    /// Planar 4:2:0 Y, Cr, Cb.
    public static let yv12 = FourCC("YV12")
    /// Planar 4:2:2 Y, Cb, Cr.
    public static let yuv422p = FourCC("422P")
    /// 8-bit luma only.
    public static let grey = FourCC("GREY")
    /// Packed 8-bit R, G, B.
    public static let rgb24 = FourCC("RGB3")
    /// 4:2:0 at 10 bits: a Y plane then interleaved Cb/Cr, each sample in the high bits of a
    /// little-endian 16-bit word (`V4L2_PIX_FMT_P010`), captured into a half-float graph.
    public static let p010 = FourCC("P010")
    /// Motion-JPEG: each frame a JPEG picture.
    public static let mjpeg = FourCC("MJPG")
    /// JPEG frames (older drivers' name for Motion-JPEG).
    public static let jpeg = FourCC("JPEG")

    /// The ELImage pixel format with the same memory layout, for formats that upload directly.
    public var pixelFormat: PixelFormat? {
        switch self {
        case .yuyv: .yuyv
        case .uyvy: .uyvy
        case .nv12: .nv12
        case .nv21: .nv21
        case .yu12: .i420
        case .yv12: .yv12
        case .yuv422p: .i422
        case .grey: .gray8
        case .rgb24: .rgb24
        case .p010: .p010
        default: nil
        }
    }

    /// True for JPEG-compressed frames, decoded with libturbojpeg before upload.
    public var isJPEG: Bool { self == .mjpeg || self == .jpeg }

    /// True when ELImage can capture this format (it uploads directly or is JPEG).
    public var isCapturable: Bool { pixelFormat != nil || isJPEG }

    /// How much ELImage likes the format when the caller does not name one: lower is better.
    /// Formats that upload as they are come first, 4:2:0 before 4:2:2, then JPEG, which costs a decode.
    var preferenceRank: Int {
        switch self {
        case .nv12: 0
        case .yuyv: 1
        case .yu12: 2
        case .uyvy: 3
        case .nv21: 4
        case .yv12: 5
        case .yuv422p: 6
        case .p010: 7  // 10 bits cost twice the bytes: asked for by name when wanted
        case .mjpeg: 10
        case .jpeg: 11
        case .rgb24: 12
        case .grey: 13
        default: 100
        }
    }

    /// The four characters, e.g. "YUYV" (trailing spaces kept, as V4L2 defines them).
    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return "0x" + String(rawValue, radix: 16) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The time between two frames, `numerator / denominator` seconds (a `v4l2_fract`).
public struct FrameInterval: Hashable, Sendable, CustomStringConvertible {
    /// Seconds per frame, numerator.
    public var numerator: UInt32
    /// Seconds per frame, denominator.
    public var denominator: UInt32

    public init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The interval of `framesPerSecond`, e.g. 30 → 1/30 s, 29.97 → 1001/30000 s.
    public init(framesPerSecond: Double) {
        let rate = max(framesPerSecond, 0.001)
        let ntsc = (rate * 1.001).rounded()
        if abs(rate.rounded() - rate) < 0.0005 {
            self.init(numerator: 1, denominator: UInt32(rate.rounded()))
        } else if abs(ntsc / 1.001 - rate) < 0.0005 {
            self.init(numerator: 1001, denominator: UInt32(ntsc) * 1000)
        } else {
            self.init(numerator: 1000, denominator: UInt32((rate * 1000).rounded()))
        }
    }

    /// Seconds per frame (0 when the denominator is 0).
    public var seconds: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }

    /// Frames per second (0 for an empty interval).
    public var framesPerSecond: Double { numerator == 0 ? 0 : Double(denominator) / Double(numerator) }

    /// The interval in whole microseconds, the unit of V4L2 timestamps.
    public var microseconds: Int64 {
        denominator == 0 ? 0 : (Int64(numerator) * 1_000_000 + Int64(denominator) / 2) / Int64(denominator)
    }

    public var description: String { Self.format(framesPerSecond) + " fps" }

    static func format(_ rate: Double) -> String {
        let rounded = (rate * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// The frame intervals a device offers for one format and size (`VIDIOC_ENUM_FRAMEINTERVALS`).
public enum FrameIntervals: Hashable, Sendable {
    /// A list of intervals, in the driver's order.
    case discrete([FrameInterval])
    /// Any interval from `minimum` to `maximum` in steps of `step` (`V4L2_FRMIVAL_TYPE_STEPWISE`,
    /// or `CONTINUOUS`, whose step is 1).
    case stepwise(minimum: FrameInterval, maximum: FrameInterval, step: FrameInterval)
    /// The driver does not enumerate intervals; `VIDIOC_S_PARM` alone tells.
    case unknown

    /// The offered intervals to choose among: the discrete list, or the range's ends.
    var candidates: [FrameInterval] {
        switch self {
        case .discrete(let list): list
        case .stepwise(let minimum, let maximum, _): [minimum, maximum]
        case .unknown: []
        }
    }

    /// The offered interval closest to `wanted` (compared as frame rates, on a log scale).
    func closest(to wanted: FrameInterval) -> FrameInterval? {
        switch self {
        case .discrete(let list):
            return list.min { Self.distance($0, wanted) < Self.distance($1, wanted) }
        case .stepwise(let minimum, let maximum, _):
            let clamped = min(max(wanted.seconds, minimum.seconds), maximum.seconds)
            if clamped == wanted.seconds { return wanted }
            return clamped == minimum.seconds ? minimum : maximum
        case .unknown:
            return nil
        }
    }

    /// The shortest offered interval (the highest frame rate).
    var shortest: FrameInterval? {
        switch self {
        case .discrete(let list): list.filter { $0.numerator > 0 }.min { $0.seconds < $1.seconds }
        case .stepwise(let minimum, _, _): minimum
        case .unknown: nil
        }
    }

    package static func distance(_ a: FrameInterval, _ b: FrameInterval) -> Double {
        guard a.seconds > 0, b.seconds > 0 else { return .infinity }
        return abs(log(a.seconds / b.seconds))
    }
}

/// A frame size a device offers, with the intervals it offers at that size.
public struct FrameSizeInfo: Hashable, Sendable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The frame intervals offered at this size.
    public var intervals: FrameIntervals

    public init(width: Int, height: Int, intervals: FrameIntervals) {
        self.width = width
        self.height = height
        self.intervals = intervals
    }

    public var description: String {
        let rates: String
        switch intervals {
        case .discrete(let list):
            rates = list.map { FrameInterval.format($0.framesPerSecond) }.joined(separator: ", ") + " fps"
        case .stepwise(let minimum, let maximum, _):
            rates = "\(FrameInterval.format(maximum.framesPerSecond))-\(FrameInterval.format(minimum.framesPerSecond)) fps"
        case .unknown:
            rates = "rate not enumerated"
        }
        return "\(width)x\(height) @ \(rates)"
    }
}

/// The frame sizes a device offers for one format (`VIDIOC_ENUM_FRAMESIZES`).
public enum FrameSizes: Hashable, Sendable {
    /// A list of sizes.
    case discrete([FrameSizeInfo])
    /// Any size in the ranges, in steps; intervals are asked for at the size chosen.
    case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int)
    /// The driver does not enumerate sizes; `VIDIOC_S_FMT` adjusts the size asked for.
    case unknown
}

/// One pixel format a device offers (`VIDIOC_ENUM_FMT`) with its sizes and frame rates.
public struct CameraFormatDescription: Hashable, Sendable {
    /// The pixel format code.
    public var fourCC: FourCC
    /// The driver's name for it, e.g. "YUYV 4:2:2".
    public var name: String
    /// True for compressed formats (`V4L2_FMT_FLAG_COMPRESSED`).
    public var isCompressed: Bool
    /// True when libv4l2 makes it by converting another format (`V4L2_FMT_FLAG_EMULATED`).
    public var isEmulated: Bool
    /// The sizes it comes in, with their frame rates.
    public var sizes: FrameSizes

    public init(fourCC: FourCC, name: String, isCompressed: Bool = false, isEmulated: Bool = false, sizes: FrameSizes) {
        self.fourCC = fourCC
        self.name = name
        self.isCompressed = isCompressed
        self.isEmulated = isEmulated
        self.sizes = sizes
    }
}

/// Common capture sizes.
public enum CapturePreset: String, Sendable, CaseIterable {
    /// 640x480.
    case vga = "640x480"
    /// 1280x720.
    case hd720 = "1280x720"
    /// 1920x1080.
    case hd1080 = "1920x1080"

    /// Width in pixels.
    public var width: Int {
        switch self {
        case .vga: 640
        case .hd720: 1280
        case .hd1080: 1920
        }
    }

    /// Height in pixels.
    public var height: Int {
        switch self {
        case .vga: 480
        case .hd720: 720
        case .hd1080: 1080
        }
    }
}

/// How frame times are counted.
public enum TimestampMode: Sendable, Hashable {
    /// Microseconds since the first frame of the stream (`start(on:)`); the first frame is at zero.
    /// Restarting with new settings or switching devices keeps counting on the same base, so times
    /// stay increasing through a camera switch. This is what encoders want.
    case relativeToFirstFrame
    /// The buffer's `CLOCK_MONOTONIC` time in microseconds, unchanged: to line up with other
    /// sources that use the same clock (audio, sensors).
    case monotonicClock
}

/// What the caller asks of the camera. The device's closest mode is chosen (see `CaptureModeChoice`).
public struct CaptureSettings: Hashable, Sendable {
    /// The wanted frame size.
    /// The wanted width in pixels.
    public var width: Int
    /// The wanted height in pixels.
    public var height: Int
    /// The wanted frame rate; `nil` means 30.
    public var framesPerSecond: Double?
    /// The wanted pixel format; `nil` lets ELImage choose (NV12, YUYV, I420, ... before MJPEG).
    /// A named format the device lacks is an error, not a silent substitute.
    public var pixelFormat: FourCC?
    /// Ignore `framesPerSecond` and take the shortest frame interval the chosen size offers.
    public var highFrameRate: Bool
    /// How many mmap buffers to ask the driver for (it may give a different number, at least 2).
    public var bufferCount: Int
    /// How long without a frame before the device counts as stalled (a fatal failure). The first
    /// frame after opening a device may take 3 s longer (cameras take a moment to start).
    public var stallTimeout: Duration
    /// How frame times are counted.
    public var timestamps: TimestampMode
    /// How frames are turned on upload (e.g. mirrored for a front camera).
    public var orientation: Orientation

    public init(width: Int, height: Int, framesPerSecond: Double? = nil, pixelFormat: FourCC? = nil,
                highFrameRate: Bool = false, bufferCount: Int = 4, stallTimeout: Duration = .seconds(2),
                timestamps: TimestampMode = .relativeToFirstFrame, orientation: Orientation = .up) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.pixelFormat = pixelFormat
        self.highFrameRate = highFrameRate
        self.bufferCount = bufferCount
        self.stallTimeout = stallTimeout
        self.timestamps = timestamps
        self.orientation = orientation
    }

    /// Settings for a preset size (720p unless told).
    public init(_ preset: CapturePreset = .hd720, framesPerSecond: Double? = nil, pixelFormat: FourCC? = nil,
                highFrameRate: Bool = false) {
        self.init(width: preset.width, height: preset.height, framesPerSecond: framesPerSecond,
                  pixelFormat: pixelFormat, highFrameRate: highFrameRate)
    }
}

/// The mode a device streams in: what the driver accepted, not only what was asked.
public struct CaptureMode: Hashable, Sendable, CustomStringConvertible {
    /// The pixel format the driver sends.
    public var fourCC: FourCC
    /// Frame width in pixels.
    public var width: Int
    /// Frame height in pixels.
    public var height: Int
    /// The frame interval the driver set (`nil` when it cannot say: no `V4L2_CAP_TIMEPERFRAME`).
    public var interval: FrameInterval?
    /// The stride of the first plane (`bytesperline`; 0 for compressed formats).
    public var bytesPerLine: Int
    /// The largest frame in bytes (`sizeimage`).
    public var imageSize: Int
    /// The colour space of the frames, from the driver's colorspace fields (see `V4L2ColorDescription`).
    public var colorSpace: ColorSpace

    public init(fourCC: FourCC, width: Int, height: Int, interval: FrameInterval?, bytesPerLine: Int,
                imageSize: Int, colorSpace: ColorSpace) {
        self.fourCC = fourCC
        self.width = width
        self.height = height
        self.interval = interval
        self.bytesPerLine = bytesPerLine
        self.imageSize = imageSize
        self.colorSpace = colorSpace
    }

    public var description: String {
        "\(fourCC) \(width)x\(height)" + (interval.map { " @ \($0)" } ?? "")
    }
}

/// The mode chosen for some settings, and how it differs from what was asked.
public struct CaptureModeChoice: Hashable, Sendable, CustomStringConvertible {
    /// What was asked for.
    public var requested: CaptureSettings
    /// What the device streams in, as the driver confirmed it.
    public var mode: CaptureMode
    /// One line per way the mode differs from the request; empty when it is exactly what was asked.
    public var adjustments: [String]

    /// True when the size and rate (and the format, when one was named) are what was asked.
    public var isExact: Bool { adjustments.isEmpty }

    public var description: String {
        isExact ? "\(mode)" : "\(mode) (\(adjustments.joined(separator: "; ")))"
    }
}
