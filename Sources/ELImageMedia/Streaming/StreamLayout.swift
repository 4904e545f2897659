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
}
