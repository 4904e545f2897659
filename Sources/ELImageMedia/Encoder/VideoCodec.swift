import CFFmpeg

/// A video format written through FFmpeg's encoders and muxers (`FileOutput.encoded`), besides
/// the H.264 of `VideoEncoder`: VP9 and AV1 in WebM or Matroska, H.264 in Matroska, and animated
/// GIF and WebP for short clips.
public enum VideoCodec: String, Sendable, CaseIterable, CustomStringConvertible {
    /// H.264 through FFmpeg's libx264 (Matroska only: MP4 goes through `VideoEncoder`).
    case h264
    /// VP9 through libvpx, constant quality.
    case vp9
    /// AV1 through SVT-AV1 (libaom where FFmpeg has no SVT-AV1), constant quality.
    case av1
    /// Animated GIF: 256 colours a frame (ordered dither), times in hundredths of a second.
    case gif
    /// Animated WebP through libwebp, lossy.
    case webp

    /// The container a file of this codec is written in, by the path's extension:
    /// `.webm` (VP9, AV1), `.mkv` (all but GIF and WebP), `.gif`, `.webp`.
    public enum Container: String, Sendable, CaseIterable {
        case webm, matroska, gif, webp

        /// The container an extension names ("webm", "mkv", "gif", "webp"), or nil.
        public init?(extension name: String) {
            switch name.lowercased() {
            case "webm": self = .webm
            case "mkv": self = .matroska
            case "gif": self = .gif
            case "webp": self = .webp
            default: return nil
            }
        }

        /// The codec a file of this container gets when none is asked for.
        public var defaultCodec: VideoCodec {
            switch self {
            case .webm: .vp9
            case .matroska: .h264
            case .gif: .gif
            case .webp: .webp
            }
        }

        /// The codecs it holds.
        public var codecs: [VideoCodec] {
            switch self {
            case .webm: [.vp9, .av1]
            case .matroska: [.h264, .vp9, .av1]
            case .gif: [.gif]
            case .webp: [.webp]
            }
        }

        /// The codec a source's sound is encoded to when it cannot be copied in: Opus for WebM,
        /// AAC for Matroska; nil for GIF and WebP, which hold no sound.
        public var soundCodec: AudioCodec? {
            switch self {
            case .webm: .opus
            case .matroska: .aac
            case .gif, .webp: nil
            }
        }

        /// Whether a sound track of the codec FFmpeg names `name` ("opus", "vorbis", "aac", ...)
        /// goes into the file as it is: WebM takes Opus and Vorbis, Matroska nearly every codec.
        public func copiesSound(codecNamed name: String) -> Bool {
            guard let descriptor = avcodec_descriptor_get_by_name(name) else { return false }
            return copiesSound(descriptor.pointee.id)
        }

        /// Whether a sound track of codec `id` goes into the file as it is.
        func copiesSound(_ id: AVCodecID) -> Bool {
            soundCodec != nil && AudioTrackFormat.muxer(muxerName, holds: id)
        }

        /// libavformat's name of the muxer.
        var muxerName: String {
            switch self {
            case .webm: "webm"
            case .matroska: "matroska"
            case .gif: "gif"
            case .webp: "webp"
            }
        }
    }

    public var description: String { rawValue }

    /// The quality scale's default for `FileOutput.encoded` (a CRF, or WebP's 0-100 quality).
    public var defaultQuality: Double {
        switch self {
        case .h264: 23
        case .vp9: 31
        case .av1: 35
        case .gif: 0
        case .webp: 75
        }
    }

    /// The qualities the codec takes: CRF 0...51 (H.264), 0...63 (VP9, AV1), 0...100 (WebP,
    /// higher is better); GIF has none.
    public var qualityRange: ClosedRange<Double> {
        switch self {
        case .h264: 0...51
        case .vp9, .av1: 0...63
        case .gif: 0...0
        case .webp: 0...100
        }
    }

    /// The first of `encoderNames` this FFmpeg has, or nil.
    var encoder: UnsafePointer<AVCodec>? { encoderNames.lazy.compactMap { avcodec_find_encoder_by_name($0) }.first }

    /// The name of the encoder used (`encoder`), or nil when this FFmpeg has none.
    package var encoderName: String? { encoder.map { String(cString: $0.pointee.name) } }

    /// FFmpeg's encoders for it, the first one present is used.
    var encoderNames: [String] {
        switch self {
        case .h264: ["libx264"]
        case .vp9: ["libvpx-vp9"]
        case .av1: ["libsvtav1", "libaom-av1"]
        case .gif: ["gif"]
        case .webp: ["libwebp_anim"]
        }
    }
}

extension VideoCodec {
    /// The encoder's settings (AVOptions) for `FileOutput.encoded`: constant quality, speeds that
    /// keep up with video on a few cores. `encoder` is the FFmpeg encoder used (`encoderName`);
    /// the benchmark gives FFmpeg's own encode the same.
    package func encoderOptions(encoder name: String, quality: Double) -> [(String, String)] {
        let crf = String(Int(quality.rounded()))
        switch self {
        case .h264: return [("crf", crf), ("preset", "veryfast")]
        case .vp9: return [("crf", crf), ("b", "0"), ("deadline", "good"), ("cpu-used", "5"), ("row-mt", "1")]
        case .av1:
            return name == "libsvtav1" ? [("crf", crf), ("preset", "10")]
                : [("crf", crf), ("b", "0"), ("cpu-used", "8"), ("row-mt", "1"), ("usage", "realtime")]
        case .gif: return []
        case .webp: return [("quality", crf), ("lossless", "0")]
        }
    }
}

extension SoundFit {
    /// A file of `container` (`FileOutput.encoded`): WebM copies Opus and Vorbis and encodes the
    /// rest to Opus; Matroska copies nearly every codec and encodes the rest to AAC; nil for GIF
    /// and WebP, which hold no sound.
    static func file(_ container: VideoCodec.Container) -> SoundFit? {
        guard let codec = container.soundCodec else { return nil }
        return SoundFit(copies: { container.copiesSound($0) }, encodesTo: codec)
    }
}
