import CFFmpeg
import ELImage

/// What an audio track holds: the codec and its parameters (for AAC, the AudioSpecificConfig),
/// sample rate and channels. It is what the MP4 muxer describes the track with (stream copy
/// passes a movie's parameters on unchanged).
public final class AudioTrackFormat: @unchecked Sendable {
    // @unchecked Sendable: the parameters are copied in at creation and never changed after.
    let parameters: UnsafeMutablePointer<AVCodecParameters>

    /// The codec's name, e.g. "aac" or "opus".
    public var codecName: String { String(cString: avcodec_get_name(parameters.pointee.codec_id)) }
    /// Samples per second.
    public var sampleRate: Int { Int(parameters.pointee.sample_rate) }
    /// Channels.
    public var channels: Int { Int(parameters.pointee.ch_layout.nb_channels) }

    /// A copy of `source` (codec tag cleared: the container chooses its own).
    convenience init(copying source: UnsafePointer<AVCodecParameters>, what: String) throws {
        try self.init(what: what) { avcodec_parameters_copy($0, source) }
        parameters.pointee.codec_tag = 0
    }

    /// Parameters for the output of an opened encoder.
    convenience init(encoder: UnsafeMutablePointer<AVCodecContext>, what: String) throws {
        try self.init(what: what) { avcodec_parameters_from_context($0, encoder) }
    }

    /// Fresh parameters filled by `fill` (an FFmpeg call returning a status).
    private init(what: String, fill: (UnsafeMutablePointer<AVCodecParameters>) -> Int32) throws {
        guard let parameters = avcodec_parameters_alloc() else {
            throw ELImageError.invalidState(node: "AudioTrack", reason: "out of memory for the parameters of \(what)")
        }
        let status = fill(parameters)
        guard status >= 0 else {
            var pointer: UnsafeMutablePointer<AVCodecParameters>? = parameters
            avcodec_parameters_free(&pointer)
            throw ELImageError.malformedMedia(file: what, frame: nil,
                                              reason: "its audio parameters cannot be read: \(FFmpegError.text(status))")
        }
        self.parameters = parameters
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&pointer)
    }

    /// Whether an MP4 file can hold this codec as it is (AAC, Opus, MP3, ALAC, FLAC, AC-3, ...).
    public var fitsInMP4: Bool { Self.mp4Holds(parameters.pointee.codec_id) }

    /// Whether an MP4 file can hold audio of codec `id` as it is.
    static func mp4Holds(_ id: AVCodecID) -> Bool { muxer("mp4", holds: id) }

    /// Whether libavformat's muxer `name` ("mp4", "webm", "matroska") can hold codec `id` as it is.
    static func muxer(_ name: String, holds id: AVCodecID) -> Bool {
        guard let format = av_guess_format(name, nil, nil) else { return false }
        return avformat_query_codec(format, id, FF_COMPLIANCE_NORMAL) == 1
    }
}
