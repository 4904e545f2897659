import CFFmpeg

extension MovieInfo {
    /// What a movie file says about its sound: its first audio track (FFmpeg's "best" one, the
    /// track `MovieAudioReader` reads and a recording of the movie keeps).
    public struct Sound: Sendable, Equatable {
        /// The codec's short name, e.g. "aac", "opus", "pcm_s16le".
        public var codecName: String
        /// Samples per second.
        public var sampleRate: Int
        /// Channels.
        public var channels: Int
        /// Whether an MP4 file can hold it as it is (stream copy: AAC, Opus, MP3, ALAC, FLAC,
        /// AC-3, ...); a recording encodes any other codec (Vorbis, PCM) to AAC.
        public var fitsInMP4: Bool

        /// The track's facts, from its stream parameters.
        init(parameters: UnsafePointer<AVCodecParameters>) {
            codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            sampleRate = Int(parameters.pointee.sample_rate)
            channels = Int(parameters.pointee.ch_layout.nb_channels)
            fitsInMP4 = AudioTrackFormat.mp4Holds(parameters.pointee.codec_id)
        }
    }
}
