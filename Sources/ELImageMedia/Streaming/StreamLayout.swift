import ELImage

/// What a live stream carries, fixed at its first frame: the H.264 stream's size, time base,
/// colour tags and headers, and the sound's format. Each connection describes its streams with it.
struct StreamLayout {
    let width: Int
    let height: Int
    /// Ticks per second of the video packets' times.
    let timescale: Int32
    let frameRate: Y4MHeader.Ratio
    let colorTags: ColorTags
    /// SPS and PPS, Annex B.
    let headers: [UInt8]
    let audio: AudioTrackFormat?
    /// RTMP: the socket's send buffer (`LiveStreamOptions.socketSendBuffer`, resolved).
    let sendBufferBytes: Int

    /// `options.socketSendBuffer`, or half a second of `settings`' maximum bit rate (at least 64 KiB;
    /// 256 KiB when the rate has no cap).
    static func sendBufferBytes(_ options: LiveStreamOptions, settings: EncoderSettings) -> Int {
        if let bytes = options.socketSendBuffer { return bytes }
        guard case let .bitrate(average, maximum, _) = settings.rateControl else { return 256 << 10 }
        return max(64 << 10, (maximum ?? average) * 1000 / 8 / 2)
    }
}
