import CFFmpeg

/// How a recording takes a source's sound: copied packet by packet when its codec is one the
/// output holds, else decoded and encoded to the output's codec (`TranscodedAudioTrack`).
struct SoundFit: Sendable {
    /// Whether a track of codec `id` is copied as it is.
    let copies: @Sendable (AVCodecID) -> Bool
    /// The codec any other track is encoded to.
    let encodesTo: AudioCodec

    /// An MP4 recording: AAC, Opus, MP3, ALAC, FLAC, AC-3, ... copied; anything else to AAC.
    static let mp4 = SoundFit(copies: AudioTrackFormat.mp4Holds, encodesTo: .aac)

    /// A live stream (FLV, MPEG-TS, HLS): AAC copied; anything else to AAC.
    static let stream = SoundFit(copies: { $0 == AV_CODEC_ID_AAC }, encodesTo: .aac)

    /// Whether a track of `format` goes in as it is.
    func copies(_ format: AudioTrackFormat) -> Bool { copies(format.parameters.pointee.codec_id) }
}
