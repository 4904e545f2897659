import ELImage

/// How a `VideoEncoder` encodes: x264's speed and quality knobs, the nominal frame rate, the colour
/// tags, and how the queue between the render thread and the encoder behaves.
///
/// ```swift
/// var settings = EncoderSettings()
/// settings.preset = .veryfast
/// settings.rateControl = .constantQuality(18)
/// settings.colorSpace = .bt709
/// let encoder = try VideoEncoder(settings: settings)
/// ```
public struct EncoderSettings: Sendable, Equatable {
    /// x264's speed/compression trade-off (`--preset`).
    public enum Preset: String, Sendable, CaseIterable {
        case ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo
    }

    /// The H.264 profile (`--profile`): what a decoder must support.
    public enum Profile: String, Sendable, CaseIterable {
        /// No B-frames, no CABAC: the widest compatibility.
        case baseline
        case main
        case high
        /// High 10: 10-bit samples (`bitDepth` 10 picks it for `.high`).
        case high10
        /// High 4:4:4 Predictive: the one profile that codes losslessly (CRF 0 picks it for `.high`
        /// and `.high10`), at 8 or 10 bits.
        case high444
    }

    /// How bits are spent.
    public enum RateControl: Sendable, Equatable {
        /// Constant rate factor (`--crf`): constant perceived quality, 0 (lossless) to 51;
        /// 18 is visually transparent, 23 is x264's default.
        case constantQuality(Double)
        /// Average bitrate in kbit/s (`--bitrate`), with an optional VBV cap (`--vbv-maxrate`,
        /// kbit/s) and buffer (`--vbv-bufsize`, kbit) for streaming.
        case bitrate(kilobitsPerSecond: Int, maximumKilobitsPerSecond: Int? = nil, bufferKilobits: Int? = nil)
    }

    /// What the render thread does when the encoder's queue is full (`.drop` counts the frame in
    /// `RecordingStatistics.dropped`).
    public typealias QueueFullPolicy = ELImage.QueueFullPolicy

    /// `--preset`; `.veryfast` by default.
    public var preset: Preset = .veryfast
    /// `--tune`, e.g. "zerolatency" (no frame delay, no B-frames: live streaming), "film",
    /// "animation", "grain", "stillimage", "psnr", "ssim", "fastdecode"; several joined by commas.
    public var tune: String?
    /// Quality or bitrate; CRF 23 by default.
    public var rateControl: RateControl = .constantQuality(23)
    /// The longest distance between keyframes, in frames (`--keyint`). `nil`: x264's default (250,
    /// plus keyframes at scene cuts), as FFmpeg's. MP4 fragments do not need to start with a
    /// keyframe: a file cut after any fragment plays up to it.
    public var keyframeInterval: Int?
    /// B-frames between reference frames (`--bframes`); `nil` keeps the preset's (3 for most).
    public var bFrames: Int?
    /// `--profile`; `.high` by default (High 10 when `bitDepth` is 10).
    public var profile: Profile = .high
    /// Bits a sample, 8 (default) or 10 (`--output-depth`): 10 packs frames as `.i420p10` and
    /// encodes High 10, which keeps the precision of 10-bit sources and of half-float graphs.
    public var bitDepth: Int = 8
    /// The layout frames are packed as for x264: I420, or I420 with 10-bit samples.
    public var pixelFormat: PixelFormat { bitDepth == 10 ? .i420p10 : .i420 }
    /// The profile given to x264: `profile`, with `.high` becoming `.high10` at 10 bits, and `.high`
    /// or `.high10` becoming `.high444` when lossless.
    var effectiveProfile: Profile {
        if isLossless && (profile == .high || profile == .high10) { return .high444 }
        return bitDepth == 10 && profile == .high ? .high10 : profile
    }
    /// CRF 0: x264 codes every sample exactly.
    var isLossless: Bool { rateControl == .constantQuality(0) }
    /// `--level`, e.g. "4.1"; `nil` lets x264 pick the lowest level that fits.
    public var level: String?
    /// Encoder threads (`--threads`); 0 lets x264 choose from the CPU count.
    public var threads: Int = 0
    /// How chroma is filtered down to 4:2:0 for x264. `.matched` (default) returns the chroma of
    /// a Y'CbCr source that went through the graph as it was (every plane within 0.3 dB of
    /// FFmpeg's libx264 at CRF 18 on real footage); `.average` blurs chroma (Cb/Cr several dB
    /// below FFmpeg's on a centred-chroma source).
    public var chromaDownsampling: ChromaDownsampling = .matched
    /// Where the 4:2:0 chroma samples sit, packed that way and tagged in the H.264 VUI
    /// (`chroma_sample_loc_type`) and the container. `nil` (default): the first frame's own
    /// (`TextureFrame.chromaLocation`: a C420jpeg Y4M, a JPEG or an MJPEG camera is `.center`, a
    /// movie keeps its tag, a frame made from RGB is `.left`), fixed for the whole recording, so
    /// the source's chroma is kept without a resample to another siting.
    public var chromaLocation: ChromaLocation?
    /// The nominal frame rate: x264's rate control works with it, and it stands in for the frame
    /// duration when timestamps cannot tell (the first frame, a frame after a pause). In MP4, frames
    /// keep their own timestamps: variable frame rates are recorded as they come. A raw H.264 file
    /// (`.annexB`) has no timestamps: its VUI states this rate, at which players show every frame.
    public var frameRate: Y4MHeader.Ratio = 30
    /// The Y'CbCr matrix and range frames are converted with, and the tags (matrix, range,
    /// primaries, transfer) written into the H.264 VUI and the container. `nil`: the first
    /// frame's colour space.
    public var colorSpace: ColorSpace?
    /// The time base of the stream, ticks per second; `nil` picks one from the first frame's
    /// timestamp (its own timescale when that is fine enough, so file timestamps stay exact).
    public var timescale: Int32?
    /// Frames between the render thread and the encoder thread (at least 1).
    public var queueCapacity: Int = 4
    /// What happens when the queue is full: `.wait` (file sources) or `.drop` (live sources).
    public var whenQueueFull: QueueFullPolicy = .wait
    /// Finishes the recording (as `stop()` would) when the source sends end-of-stream.
    public var finishesAtEndOfStream = true

    public init() {}

    /// The bitrates, VBV maxima (kbit/s) and VBV buffers (kbit) x264 is given: up to 10 Gbit/s.
    public static let kilobitRange = 1...10_000_000
    /// The keyframe intervals x264 is given, in frames: up to its "infinite" (2^30).
    public static let keyframeIntervalRange = 1...(1 << 30)

    /// Why these settings cannot work, or nil.
    var problem: String? {
        if case let .constantQuality(crf) = rateControl, !(0...51).contains(crf) {
            return "CRF \(crf) is outside 0...51"
        }
        if case let .bitrate(rate, maximum, buffer) = rateControl {
            if !Self.kilobitRange.contains(rate) { return "bitrate \(rate) kbit/s is outside \(Self.kilobitRange)" }
            if let maximum, maximum < rate { return "the VBV maximum \(maximum) kbit/s is below the bitrate \(rate) kbit/s" }
            if let maximum, !Self.kilobitRange.contains(maximum) { return "the VBV maximum \(maximum) kbit/s is outside \(Self.kilobitRange)" }
            if let buffer, !Self.kilobitRange.contains(buffer) { return "the VBV buffer \(buffer) kbit is outside \(Self.kilobitRange)" }
        }
        if let keyframeInterval, !Self.keyframeIntervalRange.contains(keyframeInterval) {
            return "keyframe interval \(keyframeInterval) frames is outside \(Self.keyframeIntervalRange)"
        }
        if let bFrames, !(0...16).contains(bFrames) { return "\(bFrames) B-frames is outside 0...16" }
        if profile == .baseline, let bFrames, bFrames > 0 { return "the baseline profile has no B-frames" }
        if bitDepth != 8 && bitDepth != 10 { return "bit depth \(bitDepth) is neither 8 nor 10" }
        if bitDepth == 10 && (profile == .baseline || profile == .main) {
            return "the \(profile) profile has 8-bit samples only; 10 bits need the high10 profile"
        }
        if isLossless && (profile == .baseline || profile == .main) {
            return "CRF 0 is lossless, which the \(profile) profile cannot code; leave the profile at high (it becomes high444)"
        }
        if threads < 0 { return "\(threads) threads" }
        if frameRate.numerator <= 0 || frameRate.denominator <= 0 || frameRate.numerator > Int(Int32.max)
            || frameRate.denominator > Int(Int32.max) {
            return "frame rate \(frameRate) is not two positive numbers"
        }
        if let timescale, timescale <= 0 { return "timescale \(timescale) is not positive" }
        if queueCapacity < 1 { return "queue capacity \(queueCapacity) is below 1" }
        if let level, Self.levelIDC(level) == nil { return "level '\(level)' is not an H.264 level such as 3.1 or 4.1" }
        return nil
    }

    /// x264's `i_level_idc` for "4.1" (41), "3" (30), "1b" (9).
    static func levelIDC(_ text: String) -> Int32? {
        let known: [String: Int32] = [
            "1": 10, "1b": 9, "1.1": 11, "1.2": 12, "1.3": 13, "2": 20, "2.1": 21, "2.2": 22, "3": 30, "3.1": 31,
            "3.2": 32, "4": 40, "4.1": 41, "4.2": 42, "5": 50, "5.1": 51, "5.2": 52, "6": 60, "6.1": 61, "6.2": 62,
        ]
        return known[text] ?? known[text.replacingOccurrences(of: ".0", with: "")]
    }
}

/// The file a recording writes.
public enum ContainerFormat: Sendable, Equatable {
    /// Fragmented MP4: a fragment (moof + mdat) is written and flushed to disk every
    /// `fragmentDuration` of stream time (cut at a keyframe when one comes within twice that),
    /// so a killed process or a power loss leaves a file that plays up to its last complete
    /// fragment.
    case mp4(fragmentDuration: Duration = .seconds(1))
    /// A raw H.264 Annex-B elementary stream (`.h264`): SPS/PPS before every keyframe, no
    /// timestamps: the VUI states `EncoderSettings.frameRate` as a fixed rate, which players and
    /// remuxers (`ffmpeg -i x.h264 -c copy x.mp4`) use to time the frames, so frames should come at
    /// that constant rate (put a `FrameRateConverter` before the encoder for a variable-rate
    /// source). Flushed to disk every `syncInterval`.
    case annexB(syncInterval: Duration = .seconds(1))

    /// `.annexB` for paths ending in `.h264`, `.264` or `.avc`, else `.mp4` with 1 s fragments.
    public static func forPath(_ path: String) -> ContainerFormat {
        let lowered = path.lowercased()
        return [".h264", ".264", ".avc"].contains(where: { lowered.hasSuffix($0) }) ? .annexB() : .mp4()
    }

    /// The fragment (MP4) or sync (Annex B) interval.
    var interval: Duration {
        switch self {
        case let .mp4(duration): duration
        case let .annexB(duration): duration
        }
    }
}

/// Limits that end a recording cleanly (as `stop()` does) when reached.
public struct RecordingLimits: Sendable, Equatable {
    /// The longest recording, in stream time: the first frame at or past it is not recorded.
    public var maximumDuration: Duration?
    /// The largest file, in bytes: the recording ends before the file would grow past it (it
    /// keeps room for the frames x264 still holds, twice the largest frame so far and the
    /// container's closing boxes).
    public var maximumBytes: Int64?

    public init(maximumDuration: Duration? = nil, maximumBytes: Int64? = nil) {
        self.maximumDuration = maximumDuration
        self.maximumBytes = maximumBytes
    }

    /// No limit.
    public static let none = RecordingLimits()
}
