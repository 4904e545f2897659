import ELImage

/// The stream header of a YUV4MPEG2 (`.y4m`) file: its first line, `YUV4MPEG2` followed by
/// space-separated fields, each a tag letter and a value:
///
///     YUV4MPEG2 W640 H480 F30000:1001 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED
///
/// `W` width and `H` height are required; the others default as ffmpeg does (`F25:1`, `Ip`,
/// `A0:0`, `C420jpeg`). Unknown tag letters are ignored, as the format asks. 8-bit streams
/// (4:2:0, 4:2:2, 4:4:4 and mono) and 10-bit 4:2:0 (`C420p10`) are supported.
public struct Y4MHeader: Sendable, Equatable {
    /// A ratio of two whole numbers, written `numerator:denominator` (the `F` and `A` fields).
    public struct Ratio: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
        /// The part before the colon.
        public var numerator: Int
        /// The part after the colon.
        public var denominator: Int

        /// `numerator:denominator`, not checked.
        public init(_ numerator: Int, _ denominator: Int) {
            self.numerator = numerator
            self.denominator = denominator
        }

        /// `value:1`, so that a whole frame rate can be written as a literal (`frameRate: 25`).
        public init(integerLiteral value: Int) { self.init(value, 1) }

        public var description: String { "\(numerator):\(denominator)" }

        /// The time between two frames at this rate (40 ms for a rate that is not positive).
        public var frameInterval: Duration {
            guard numerator > 0, denominator > 0 else { return .milliseconds(40) }
            return .seconds(Double(denominator) / Double(numerator))
        }
    }

    /// The `I` field: how the frames' fields are ordered.
    public enum Interlacing: String, Sendable, CaseIterable {
        /// `Ip`: progressive frames.
        case progressive = "p"
        /// `It`: interlaced, top field first.
        case topFieldFirst = "t"
        /// `Ib`: interlaced, bottom field first.
        case bottomFieldFirst = "b"
        /// `Im`: mixed; each frame's own header says.
        case mixed = "m"
        /// `I?`: unknown.
        case unknown = "?"
    }

    /// The `C` field (called "colourspace" by the format): the chroma subsampling and, for
    /// 4:2:0, where the chroma samples sit.
    public enum ChromaFormat: String, Sendable, CaseIterable {
        /// `C420jpeg`: 4:2:0, chroma centred between luma samples. The default when `C` is absent.
        case yuv420jpeg = "420jpeg"
        /// `C420mpeg2`: 4:2:0, chroma co-sited horizontally with the left luma sample.
        case yuv420mpeg2 = "420mpeg2"
        /// `C420paldv`: 4:2:0, chroma co-sited with the top-left luma sample.
        case yuv420paldv = "420paldv"
        /// `C420`: the same as `420jpeg`.
        case yuv420 = "420"
        /// `C422`: 4:2:2.
        case yuv422 = "422"
        /// `C444`: 4:4:4.
        case yuv444 = "444"
        /// `Cmono`: luma only.
        case mono = "mono"
        /// `C420p10`: 4:2:0 with 10-bit samples in little-endian 16-bit words (FFmpeg's
        /// `yuv420p10le`), chroma co-sited horizontally with the left luma sample (the H.264 and
        /// HEVC default; the field says nothing of siting).
        case yuv420p10 = "420p10"

        /// The layout of one frame's planes in memory.
        public var pixelFormat: PixelFormat {
            switch self {
            case .yuv420jpeg, .yuv420mpeg2, .yuv420paldv, .yuv420: .i420
            case .yuv422: .i422
            case .yuv444: .i444
            case .mono: .gray8
            case .yuv420p10: .i420p10
            }
        }

        /// Where chroma samples sit. 4:2:2 chroma is co-sited with the left luma sample (as in
        /// BT.601); for 4:4:4 and mono, which are not subsampled, the value has no effect.
        public var chromaLocation: ChromaLocation {
            switch self {
            case .yuv420jpeg, .yuv420: .center
            case .yuv420mpeg2, .yuv422, .yuv420p10: .left
            case .yuv420paldv: .topLeft
            case .yuv444, .mono: .center
            }
        }

        /// The value that stores `format` with chroma at `chromaLocation`, or nil for a format
        /// that Y4M cannot hold (anything but i420, i422, i444, gray8 and i420p10, whose siting is
        /// always `.left`).
        public init?(format: PixelFormat, chromaLocation: ChromaLocation = .center) {
            switch format {
            case .i420:
                switch chromaLocation {
                case .center: self = .yuv420jpeg
                case .left: self = .yuv420mpeg2
                case .topLeft: self = .yuv420paldv
                }
            case .i422: self = .yuv422
            case .i444: self = .yuv444
            case .gray8: self = .mono
            case .i420p10: self = .yuv420p10
            default: return nil
            }
        }
    }

    /// The largest width or height accepted, in pixels.
    public static let maximumDimension = 16384

    /// `W`: frame width in pixels, 1 to `maximumDimension`. Odd sizes are valid; subsampled
    /// chroma planes round up.
    public var width: Int
    /// `H`: frame height in pixels, 1 to `maximumDimension`.
    public var height: Int
    /// `F`: frames per second as a ratio, e.g. `30000:1001`. Both parts are positive.
    public var frameRate: Ratio
    /// `I`: field order.
    public var interlacing: Interlacing
    /// `A`: the shape of one pixel, width:height; `0:0` means unknown.
    public var pixelAspect: Ratio
    /// `C`: chroma subsampling and siting.
    public var chromaFormat: ChromaFormat
    /// `X` options, in file order, each without its leading `X` (e.g. `COLORRANGE=FULL`).
    public var options: [String]

    /// A header from its fields, not checked (`Y4MWriter` checks it before writing). Unlike a
    /// parsed header without `A`, the pixel aspect defaults to square (`A1:1`), as ffmpeg writes.
    public init(width: Int, height: Int, frameRate: Ratio = 25, interlacing: Interlacing = .progressive,
                pixelAspect: Ratio = Ratio(1, 1), chromaFormat: ChromaFormat = .yuv420jpeg,
                options: [String] = []) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.interlacing = interlacing
        self.pixelAspect = pixelAspect
        self.chromaFormat = chromaFormat
        self.options = options
    }

    /// A header for writing frames of `format` (i420, i422, i444, gray8 or i420p10), tagged with
    /// `XCOLORRANGE` unless `colorRange` is nil. `chromaLocation` picks the 4:2:0 variant.
    /// - Throws: `ELImageError.invalidInput` for another format, a size outside
    ///   1...`maximumDimension` or a frame rate that is not positive.
    public init(width: Int, height: Int, format: PixelFormat, frameRate: Ratio = 25,
                colorRange: ColorRange? = .limited, chromaLocation: ChromaLocation = .center) throws {
        guard let chroma = ChromaFormat(format: format, chromaLocation: chromaLocation) else {
            throw ELImageError.invalidInput(
                what: "Y4M cannot store \(format) frames",
                hint: "convert to i420, i422, i444, gray8 or i420p10 first")
        }
        self.init(width: width, height: height, frameRate: frameRate, chromaFormat: chroma,
                  options: chroma == .yuv420p10 ? ["YSCSS=420P10"] : [])  // as FFmpeg and mjpegtools write it
        self.colorRange = colorRange
        if let problem = problem {
            throw ELImageError.invalidInput(what: "cannot make a Y4M header: \(problem)",
                                            hint: "pass a size from 1 to \(Self.maximumDimension) and a positive frame rate")
        }
    }

    /// The layout of one frame's planes.
    public var pixelFormat: PixelFormat { chromaFormat.pixelFormat }

    /// Where chroma samples sit, from `C`.
    public var chromaLocation: ChromaLocation { chromaFormat.chromaLocation }

    /// The `XCOLORRANGE` option: `FULL` or `LIMITED`, nil when absent or another value. Setting
    /// it replaces the option in place (or appends it); nil removes it.
    public var colorRange: ColorRange? {
        get {
            var range: ColorRange?
            for option in options where option.hasPrefix(Self.colorRangePrefix) {
                switch option.dropFirst(Self.colorRangePrefix.count) {
                case "FULL": range = .full
                case "LIMITED": range = .limited
                default: range = nil
                }
            }
            return range
        }
        set {
            let value = newValue.map { Self.colorRangePrefix + ($0 == .full ? "FULL" : "LIMITED") }
            var result: [String] = []
            var placed = false
            for option in options {
                if option.hasPrefix(Self.colorRangePrefix) {
                    if !placed, let value { result.append(value) }
                    placed = true
                } else {
                    result.append(option)
                }
            }
            if !placed, let value { result.append(value) }
            options = result
        }
    }

    /// Bytes of one frame's planes (without its `FRAME` line).
    public var frameByteCount: Int { pixelFormat.byteCount(width: width, height: height) }

    /// The header line as stored in a file, without the final newline.
    public var line: String {
        var text = "YUV4MPEG2 W\(width) H\(height) F\(frameRate) I\(interlacing.rawValue) A\(pixelAspect) C\(chromaFormat.rawValue)"
        for option in options { text += " X" + option }
        return text
    }

    /// Parses a header line (without its newline).
    /// - Parameters:
    ///   - line: the header line, from `YUV4MPEG2` on.
    ///   - file: the file the line came from, named in errors.
    /// - Throws: `ELImageError.malformedMedia(file:frame: nil, reason:)` naming the field that
    ///   is missing or wrong and what was found.
    public init(parsing line: some StringProtocol, file: String) throws {
        func fail(_ reason: String) -> ELImageError {
            .malformedMedia(file: file, frame: nil, reason: reason)
        }
        let tokens = String(line).split(separator: " ")
        guard let magic = tokens.first, magic == Self.magic else {
            throw fail("a Y4M stream header must start with '\(Self.magic)', found '\(Self.quoted(tokens.first ?? ""))'; this is not a YUV4MPEG2 file")
        }
        var width: Int?, height: Int?
        self.init(width: 0, height: 0)
        self.pixelAspect = Ratio(0, 0)
        for token in tokens.dropFirst() {
            guard let tag = token.first else { continue }
            let value = token.dropFirst()
            switch tag {
            case "W": width = try Self.dimension(value, token: token, name: "W (width)", fail: fail)
            case "H": height = try Self.dimension(value, token: token, name: "H (height)", fail: fail)
            case "F":
                guard let rate = Self.ratio(value), rate.numerator > 0, rate.denominator > 0,
                      rate.numerator <= Int(Int32.max), rate.denominator <= Int(Int32.max) else {
                    throw fail("F (frame rate) must be two positive whole numbers up to \(Int32.max) as F<numerator>:<denominator> (e.g. F25:1 or F30000:1001), found '\(Self.quoted(token))'")
                }
                frameRate = rate
            case "I":
                guard value.count == 1, let mode = Interlacing(rawValue: String(value)) else {
                    throw fail("I (interlacing) must be Ip, It, Ib, Im or I?, found '\(Self.quoted(token))'")
                }
                interlacing = mode
            case "A":
                guard let aspect = Self.ratio(value),
                      (aspect.numerator == 0 && aspect.denominator == 0)
                        || (aspect.numerator > 0 && aspect.denominator > 0) else {
                    throw fail("A (pixel aspect) must be two positive whole numbers as A<width>:<height> (e.g. A1:1), or A0:0 for unknown, found '\(Self.quoted(token))'")
                }
                pixelAspect = aspect
            case "C":
                guard let chroma = ChromaFormat(rawValue: String(value)) else {
                    throw fail(Self.unsupportedChroma(value, token: token))
                }
                chromaFormat = chroma
            case "X":
                options.append(String(value))
            default:
                continue  // The format asks readers to ignore tags they do not know.
            }
        }
        guard let width else {
            throw fail("the header has no W (width) field; a Y4M header gives the frame size, e.g. '\(Self.magic) W640 H480 F25:1 C420jpeg'")
        }
        guard let height else {
            throw fail("the header has no H (height) field; a Y4M header gives the frame size, e.g. '\(Self.magic) W640 H480 F25:1 C420jpeg'")
        }
        self.width = width
        self.height = height
    }

    /// Why this header cannot be written, or nil when it can.
    var problem: String? {
        let limit = Self.maximumDimension
        if !(1...limit).contains(width) { return "width \(width) is outside 1...\(limit)" }
        if !(1...limit).contains(height) { return "height \(height) is outside 1...\(limit)" }
        if !(1...Int(Int32.max)).contains(frameRate.numerator) || !(1...Int(Int32.max)).contains(frameRate.denominator) {
            return "frame rate \(frameRate) is not two positive whole numbers up to \(Int32.max)"
        }
        if !(pixelAspect == Ratio(0, 0) || (pixelAspect.numerator > 0 && pixelAspect.denominator > 0)) {
            return "pixel aspect \(pixelAspect) is neither 0:0 (unknown) nor two positive numbers"
        }
        if let bad = options.first(where: { option in option.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F } }) {
            return "option 'X\(Self.quoted(bad))' contains a space or control character, which would break the header line"
        }
        return nil
    }

    static let magic = "YUV4MPEG2"
    private static let colorRangePrefix = "COLORRANGE="

    /// A width or height token's value, checked against 1...maximumDimension.
    private static func dimension(_ value: Substring, token: Substring, name: String,
                                  fail: (String) -> ELImageError) throws -> Int {
        guard let number = wholeNumber(value), number > 0 else {
            throw fail("\(name) must be a whole number of pixels from 1 to \(maximumDimension), found '\(quoted(token))'")
        }
        guard number <= maximumDimension else {
            throw fail("\(name) must be at most \(maximumDimension), found '\(quoted(token))'; larger frames are not supported")
        }
        return number
    }

    /// The reason for a `C` value that is not one of `ChromaFormat`.
    private static func unsupportedChroma(_ value: Substring, token: Substring) -> String {
        let depthDigits = value.reversed().prefix { $0.isASCII && $0.isNumber }.count
        let layout = value.dropLast(depthDigits), depth = value.suffix(depthDigits)
        if !depth.isEmpty, ["420p", "422p", "444p", "mono"].contains(layout) {
            return "C (colourspace) '\(quoted(token))' is a \(depth)-bit format; Y4M is read at 8 bits and as 10-bit 4:2:0 (C420p10): convert it with e.g. ffmpeg -i in.y4m -pix_fmt yuv420p10le out.y4m"
        }
        let known = ChromaFormat.allCases.map(\.rawValue).joined(separator: ", ")
        return "C (colourspace) '\(quoted(token))' is not supported; use one of \(known)"
    }

    /// Digits only (no sign, no spaces); saturates instead of overflowing.
    private static func wholeNumber(_ text: Substring) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for scalar in text.unicodeScalars {
            guard scalar.value >= 0x30, scalar.value <= 0x39 else { return nil }
            value = min(value * 10 + Int(scalar.value - 0x30), 1 << 40)
        }
        return value
    }

    /// `n:d` with both parts whole numbers.
    private static func ratio(_ text: Substring) -> Ratio? {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let numerator = wholeNumber(parts[0]), let denominator = wholeNumber(parts[1]) else {
            return nil
        }
        return Ratio(numerator, denominator)
    }

    /// `text` fit to quote in a message: at most 40 characters, control and non-ASCII characters
    /// escaped.
    static func quoted(_ text: some StringProtocol) -> String {
        var result = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == 40 { return result + "…" }
            if scalar.value >= 0x20, scalar.value < 0x7F {
                result.unicodeScalars.append(scalar)
            } else {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return result
    }
}
