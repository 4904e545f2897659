/// The `elimage` command's text parsers that the `cli-arguments` fuzzer reaches, chosen by an
/// input's first byte (its value modulo the count of cases, in this order; the order is part of
/// the corpus format, so new parsers go at the end).
enum CommandLineArgumentKind: CaseIterable {
    /// `DurationArgument` (`--pre-record`, `--motion-hold`, `--reconnect-for`, `--max-delay`).
    case duration
    /// `SegmentArgument` (`--segment`).
    case segment
    /// `SizeArgument` (`--size`, `--device-size`, `--detect-size`), its minimum side from the
    /// first byte too (1, 2 or 8, as the options use).
    case size
    /// `FrameRateArgument` (`--fps`).
    case frameRate
    /// `FilterSpec` (`--filter`).
    case filter
    /// Every enum option's `init?(argument:)` (`--matrix`, `--format`, `--preset`, ...).
    case enumValue
    /// `StreamTarget` and `AddressRedaction` (`-o rtmp://…`, `srt://…`, `DIR/index.m3u8`).
    case streamTarget
    /// `NumberedFileName` (`-o frame%05d.png`).
    case fileNamePattern

    /// The kind `byte` picks.
    init(byte: UInt8) {
        let all = Self.allCases
        self = all[Int(byte) % all.count]
    }
}
