import ArgumentParser
import ELImage
import ELImageCommandLine
import ELImageMedia
import Foundation

/// `elimage run`'s live-streaming options, for `-o rtmp://…`, `srt://…` or `DIR/index.m3u8`: how
/// to encode for live, how the stream behaves when the link fails, the local recording beside it.
struct StreamOptions: ParsableArguments {
    @Option(help: "x264 tune, e.g. zerolatency (live streams: no frame delay) or film.")
    var tune: String?

    @Option(parsing: .unconditional, help: "Constant bit rate: the most kbit/s (x264's VBV maximum; with --bitrate, or alone for CBR).")
    var maxrate: Int?

    @Option(parsing: .unconditional, help: "The VBV buffer in kbit (default: one second of --maxrate).")
    var bufsize: Int?

    @Option(help: ArgumentHelp("Keyframe interval in seconds (2, 1.5s): where a viewer can join, and what a slow link drops at once.",
                               valueName: "duration"))
    var gop: String?

    @Option(help: ArgumentHelp(
        "Record to FILE (.mp4) beside the stream every frame the graph gives the stream: frames the stream drops on a slow link or an outage stay in the file.",
        discussion: "Frames the input drops before the graph (a file paced in real time whose frames come too late, a camera's frames replaced while the graph was busy) reach neither; the summary counts them.",
        valueName: "file"))
    var record: String?

    @Option(name: .customLong("reconnect-for"), help: ArgumentHelp(
        "How long to keep reconnecting when the server goes away (default 30s; 0 fails at once).", valueName: "duration"))
    var reconnectFor: String?

    @Option(name: .customLong("max-delay"), help: ArgumentHelp(
        "The most stream time that may wait to be sent (default 2s); past it whole groups of pictures are dropped.",
        valueName: "duration"))
    var maxDelay: String?

    @Option(name: .customLong("hls-segment"), help: ArgumentHelp("HLS: segment length (default 2s).", valueName: "duration"))
    var hlsSegment: String?

    @Option(name: .customLong("hls-list-size"), parsing: .unconditional,
            help: "HLS: segments in the rolling playlist, older ones deleted (default 6; 0 keeps all).")
    var hlsListSize: Int?

    @Option(name: .customLong("hls-type"), help: "HLS: segment type (default mpegts).")
    var hlsType: StreamTarget.HLSSegmentType?

    @Option(name: .customLong("stream-key-file"), help: ArgumentHelp(
        "Read the stream's secret from FILE instead of the command line (which every user of the machine can read): an RTMP stream key, added as the address's last component, or an SRT passphrase. ELIMAGE_STREAM_KEY does the same from the environment.",
        valueName: "file"))
    var streamKeyFile: String?

    /// The environment variable that holds a stream's secret (`--stream-key-file` wins).
    static let keyVariable = "ELIMAGE_STREAM_KEY"

    /// `output` with the stream's secret from `--stream-key-file` or `ELIMAGE_STREAM_KEY` added:
    /// an RTMP key as the last path component, an SRT `passphrase`. Other outputs as they are.
    func address(_ output: String) throws(UsageError) -> String {
        let key: String
        if let streamKeyFile {
            guard let text = try? String(contentsOfFile: streamKeyFile, encoding: .utf8) else {
                throw UsageError("--stream-key-file \(streamKeyFile): cannot read it; give a file holding the stream key")
            }
            key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !key.isEmpty else { throw UsageError("--stream-key-file \(streamKeyFile): the file is empty") }
        } else if let fromEnvironment = ProcessInfo.processInfo.environment[Self.keyVariable], !fromEnvironment.isEmpty {
            key = fromEnvironment
        } else {
            return output
        }
        guard let target = StreamTarget(output), target.isNetwork else {
            guard streamKeyFile != nil else { return output }  // the variable is for streams only
            throw UsageError("--stream-key-file goes with a live stream: -o rtmp://HOST/APP or srt://HOST:PORT")
        }
        if case .srt = target.kind {
            return output + (output.contains("?") ? "&" : "?") + "passphrase=" + key
        }
        return output + (output.hasSuffix("/") ? "" : "/") + key
    }

    /// Whether an option only a stream takes was given (--record, --max-delay, the --hls ones; a
    /// virtual camera takes --reconnect-for too).
    private var givesStreamOnlyOptions: Bool {
        maxDelay != nil || hlsSegment != nil || hlsListSize != nil || hlsType != nil || record != nil
    }

    /// The live stream's options, checked.
    func liveOptions() throws(UsageError) -> LiveStreamOptions {
        var options = LiveStreamOptions()
        if let window = try reconnectWindow() { options.reconnectWindow = window }
        if let maxDelay { options.maximumDelay = try Self.duration(maxDelay, option: "--max-delay") }
        if let hlsSegment { options.hlsSegmentDuration = try Self.duration(hlsSegment, option: "--hls-segment") }
        if let hlsListSize {
            guard (0...Int(Int32.max)).contains(hlsListSize) else {
                throw UsageError("--hls-list-size \(hlsListSize): use 0 (keep all) to \(Int32.max)")
            }
            options.hlsPlaylistLength = hlsListSize
        }
        return options
    }

    /// The bitrates the encoder bounds, checked before anything runs.
    func validate() throws {
        for (name, value) in [("--maxrate", maxrate), ("--bufsize", bufsize)] {
            if let value, !EncoderSettings.kilobitRange.contains(value) {
                throw ValidationError("\(name) \(value): give \(EncoderSettings.kilobitRange) kbit/s, e.g. \(name) 2500")
            }
        }
    }

    /// Applies --tune, --maxrate, --bufsize and --gop (at `rate` frames per second) to `settings`.
    func apply(to settings: inout EncoderSettings, frameRate rate: Y4MHeader.Ratio) throws(UsageError) {
        if let tune { settings.tune = tune }
        if let maxrate {
            let average: Int
            if case let .bitrate(given, _, _) = settings.rateControl {
                guard given <= maxrate else { throw UsageError("--maxrate \(maxrate): below --bitrate \(given)") }
                average = given
            } else {
                average = maxrate
            }
            settings.rateControl = .bitrate(kilobitsPerSecond: average, maximumKilobitsPerSecond: maxrate, bufferKilobits: bufsize ?? maxrate)
        } else if let bufsize {
            throw UsageError("--bufsize \(bufsize): the VBV buffer goes with --maxrate, e.g. --maxrate 2500 --bufsize 5000")
        }
        if let gop {
            let duration = try Self.duration(gop, option: "--gop")
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            let frames = (seconds * Double(rate.numerator) / Double(rate.denominator)).rounded()
            guard frames <= Double(EncoderSettings.keyframeIntervalRange.upperBound) else {
                throw UsageError("--gop \(gop): at \(rate.numerator)/\(rate.denominator) fps that is \(Int(frames)) frames, over the "
                                 + "\(EncoderSettings.keyframeIntervalRange.upperBound) a keyframe interval may have")
            }
            settings.keyframeInterval = max(1, Int(frames))
        }
    }

    /// --reconnect-for ("0" is `.zero`: no reconnecting); nil when not given (a stream then keeps
    /// trying 30 s, a virtual camera as long as the run goes on).
    func reconnectWindow() throws(UsageError) -> Duration? {
        guard let reconnectFor else { return nil }
        if reconnectFor.trimmingCharacters(in: .whitespaces) == "0" { return .zero }
        return try Self.duration(reconnectFor, option: "--reconnect-for")
    }

    /// Refuses the stream options without a stream output (a virtual camera takes --reconnect-for).
    func checkUsage(output: OutputKind?) throws(UsageError) {
        if case .virtualCamera? = output, !givesStreamOnlyOptions { return }
        if case .stream? = output {
            if let record {
                guard case .video = try OutputKind(path: record) else {
                    throw UsageError("--record \(record): records a video file beside the stream: give a .mp4 (or .h264) name")
                }
            }
            return
        }
        if reconnectFor != nil || givesStreamOnlyOptions {
            throw UsageError("--record, --reconnect-for, --max-delay and the --hls options go with a live stream: "
                             + "-o rtmp://HOST/APP/KEY, srt://HOST:PORT or DIR/index.m3u8")
        }
    }

    private static func duration(_ text: String, option: String) throws(UsageError) -> Duration {
        guard let duration = try DurationArgument.parse(text, option: option) else {
            throw UsageError("\(option) \(text): give a duration (2s, 500ms, 1m), e.g. \(option) 2s")
        }
        return duration
    }
}
