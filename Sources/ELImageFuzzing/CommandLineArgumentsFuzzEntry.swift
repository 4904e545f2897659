import ELImage
import ELImageCommandLine
import ELImageMedia

/// Fuzzes the `elimage` command's text parsers: the input's first byte picks the parser
/// (`CommandLineArgumentKind`), the rest is the option's value as UTF-8 (invalid sequences read as
/// U+FFFD, as the command line's arguments are). Each parser either returns a value inside its
/// documented range or throws its `UsageError` (`ELImageError` for the media module's names);
/// anything else, or a value outside the range, breaks its contract.
enum CommandLineArgumentsFuzzEntry: FuzzEntry {
    static func consume(_ bytes: [UInt8]) throws -> Int {
        let selector = bytes.first ?? 0
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        switch CommandLineArgumentKind(byte: selector) {
        case .duration: try duration(text)
        case .segment: try segment(text)
        case .size: try size(text, minimum: [1, 2, 8][Int(selector / UInt8(CommandLineArgumentKind.allCases.count)) % 3])
        case .frameRate: try frameRate(text)
        case .filter: try filter(text)
        case .enumValue: try enumValue(text)
        case .streamTarget: try streamTarget(text)
        case .fileNamePattern: try fileNamePattern(text)
        }
        return 1
    }

    private static let shortest = Duration.milliseconds(1)
    private static let longest = Duration.seconds(Int64(DurationArgument.longestHours) * 3600)

    private static func duration(_ text: String) throws {
        guard let duration = try DurationArgument.parse(text, option: "--pre-record") else { return }
        try FuzzContractViolation.check((shortest...longest).contains(duration),
                                        "DurationArgument gave \(duration) for '\(text)', outside 1ms...\(DurationArgument.longestHours)h")
    }

    private static func segment(_ text: String) throws {
        switch try SegmentArgument.parse(text) {
        case .duration(let duration):
            try FuzzContractViolation.check((shortest...longest).contains(duration),
                                            "SegmentArgument gave \(duration) for '\(text)', outside 1ms...\(DurationArgument.longestHours)h")
        case .bytes(let count):
            try FuzzContractViolation.check((RecordingSegments.smallestBytes...SegmentArgument.largestBytes).contains(count),
                                            "SegmentArgument gave \(count) bytes for '\(text)', outside 16KiB...16TiB")
        }
    }

    private static func size(_ text: String, minimum: Int) throws {
        let size = try SizeArgument.parse(text, option: "--size", minimum: minimum, example: "1280x720")
        let range = minimum...SizeArgument.largestSide
        try FuzzContractViolation.check(range.contains(size.width) && range.contains(size.height),
                                        "SizeArgument gave \(size.width)x\(size.height) for '\(text)', sides outside \(range)")
        try FuzzContractViolation.check(text.lowercased().filter { $0 == "x" }.count == 1,
                                        "SizeArgument took '\(text)', which is not one WIDTH, one x and one HEIGHT")
    }

    private static func frameRate(_ text: String) throws {
        let rate = try FrameRateArgument.parse(text)
        try FuzzContractViolation.check(
            rate.numerator > 0 && rate.denominator > 0
                && Double(rate.numerator) / Double(rate.denominator) <= Double(FrameRateArgument.fastestRate),
            "FrameRateArgument gave \(rate.numerator)/\(rate.denominator) for '\(text)', outside (0, \(FrameRateArgument.fastestRate)]")
    }

    private static func filter(_ text: String) throws {
        let spec = try FilterSpec(parsing: text)
        try FuzzContractViolation.check(!spec.name.isEmpty && spec.parameters.allSatisfy { $0.value.isFinite },
                                        "FilterSpec gave '\(spec)' for '\(text)': an empty name or a value that is not finite")
        _ = spec.description
    }

    private static func enumValue(_ text: String) throws {
        try check(ColorMatrix.self, text)
        try check(ColorRange.self, text)
        try check(PixelFormat.self, text)
        try check(EncoderSettings.Preset.self, text)
        try check(AudioCodec.self, text)
        try check(StreamTarget.HLSSegmentType.self, text)
        try check(FrameScaling.self, text)
        _ = Orientation.Rotation(argument: text)
        _ = FFmpegLog.Level(argument: text)
        _ = ChromaDownsampling(argument: text)
    }

    /// An enum option takes its values' names in any letter case, and nothing else.
    private static func check<Value: EnumArgument>(_ type: Value.Type, _ text: String) throws {
        guard let value = Value(argument: text) else { return }
        try FuzzContractViolation.check(value.rawValue == text.lowercased(),
                                        "\(Value.self)(argument: '\(text)') gave \(value.rawValue)")
    }

    private static func streamTarget(_ text: String) throws {
        _ = AddressRedaction.redact(text)
        _ = AddressRedaction.redactAddresses(in: text)
        let target = try StreamTarget(validating: text)
        _ = target.description
        _ = target.isNetwork
    }

    private static func fileNamePattern(_ text: String) throws {
        let name = try NumberedFileName(text)
        let first = name.path(index: 0)
        for index in [1, 7, 99_999, Int.max] {
            let path = name.path(index: index)
            try FuzzContractViolation.check(name.isNumbered || path == first,
                                            "NumberedFileName('\(text)') names one file but gives \(first) and \(path)")
        }
    }
}
