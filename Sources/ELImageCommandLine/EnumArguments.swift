import ArgumentParser
import ELImage
import ELImageMedia

/// An enum option of the tool, parsed by swift-argument-parser from its raw value in any letter
/// case; help and errors list the valid values (`allValueStrings`).
public protocol EnumArgument: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {}

extension EnumArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension ColorMatrix: ExpressibleByArgument, EnumArgument {}
extension ColorRange: ExpressibleByArgument, EnumArgument {}
extension PixelFormat: ExpressibleByArgument, EnumArgument {}
extension EncoderSettings.Preset: ExpressibleByArgument, EnumArgument {}
extension AudioCodec: ExpressibleByArgument, EnumArgument {}
extension Orientation.Rotation: ExpressibleByArgument {}
extension StreamTarget.HLSSegmentType: ExpressibleByArgument, EnumArgument {}
extension FrameScaling: ExpressibleByArgument, EnumArgument {}
extension VideoCodec: ExpressibleByArgument, EnumArgument {}

extension FFmpegLog.Level: ExpressibleByArgument {
    public init?(argument: String) {
        guard let value = Self.allCases.first(where: { "\($0)" == argument.lowercased() }) else { return nil }
        self = value
    }

    public static var allValueStrings: [String] { allCases.map { "\($0)" } }
}

extension ChromaDownsampling: ExpressibleByArgument {
    public init?(argument: String) {
        guard let value = Self.allCases.first(where: { "\($0)" == argument.lowercased() }) else { return nil }
        self = value
    }

    public static var allValueStrings: [String] { allCases.map { "\($0)" } }
}
