/// How a live stream behaves when the link is slow or goes away, and how HLS is cut
/// (`VideoEncoder.start(streamingTo:options:)`). The encoding itself is the encoder's
/// `EncoderSettings` (for live: `tune = "zerolatency"`, `.bitrate` with a maximum and buffer, a
/// keyframe interval of a second or two).
public struct LiveStreamOptions: Sendable, Equatable {
    /// The most stream time that may wait to be sent. Past it, whole groups of pictures are
    /// dropped from the queue (from the oldest up to the newest keyframe queued, with their
    /// sound), so the stream catches up with the camera instead of falling further behind;
    /// 2 s by default.
    public var maximumDelay: Duration = .seconds(2)
    /// The most bytes that may wait to be sent (a bound for very high bit rates); 64 MiB.
    public var maximumQueuedBytes = 64 << 20
    /// How long a network stream that lost its server keeps trying to reconnect (with back-off:
    /// 0.25 s, doubling up to 2 s between tries) before it fails; 30 s by default, `.zero` never
    /// reconnects. The graph runs on meanwhile (a local recording beside the stream keeps every
    /// frame); the frames of the outage are dropped from the stream, whole groups of pictures at a
    /// time, and counted. The first connection is not retried: a wrong address fails at once.
    public var reconnectWindow: Duration = .seconds(30)
    /// How long connecting, or one write, may take before the server counts as gone; 5 s.
    public var networkTimeout: Duration = .seconds(5)
    /// When the stream ends, how long the frames still queued may take to reach the server
    /// (then the RTMP stream is unpublished, the SRT socket lingers that long); 5 s.
    public var closingTimeout: Duration = .seconds(5)
    /// HLS: the target length of a segment (cut at the next keyframe: make the keyframe interval
    /// divide it); 2 s.
    public var hlsSegmentDuration: Duration = .seconds(2)
    /// HLS: the segments the rolling playlist lists (older ones are deleted); 6. Zero keeps
    /// every segment (an event playlist).
    public var hlsPlaylistLength = 6
    /// SRT: the receiver's latency buffer (`latency`), the time lost packets have to be sent
    /// again; 120 ms, SRT's default. The stream stays connected about twice this long after its
    /// last packet, so the receiver hands on what it still holds: a listener set to a longer
    /// latency than this should be given it here too.
    public var srtLatency: Duration = .milliseconds(120)
    /// RTMP: the socket's send buffer in bytes (`SO_SNDBUF`). What waits there is delay the queue
    /// can neither see nor drop (Linux lets it grow to 4 MiB: 20 s of a 1.5 Mbit/s stream on a
    /// slow link), so it is kept small; `nil` (default) takes half a second of the encoder's
    /// maximum bit rate, at least 64 KiB (256 KiB without a bit-rate cap).
    public var socketSendBuffer: Int?

    public init() {}

    /// Why these options cannot work, or nil.
    var problem: String? {
        if maximumDelay <= .zero { return "the maximum delay \(maximumDelay) is not positive" }
        if maximumQueuedBytes < 1 << 16 { return "a queue of \(maximumQueuedBytes) bytes is below 64 KiB" }
        if let socketSendBuffer, socketSendBuffer < 4096 { return "a socket send buffer of \(socketSendBuffer) bytes is below 4 KiB" }
        if reconnectWindow < .zero { return "the reconnect window \(reconnectWindow) is negative" }
        if networkTimeout <= .zero { return "the network timeout \(networkTimeout) is not positive" }
        if closingTimeout < .zero { return "the closing timeout \(closingTimeout) is negative" }
        if hlsSegmentDuration <= .zero { return "the HLS segment duration \(hlsSegmentDuration) is not positive" }
        if !(0...Int(Int32.max)).contains(hlsPlaylistLength) { return "an HLS playlist of \(hlsPlaylistLength) segments" }
        if srtLatency < .zero { return "the SRT latency \(srtLatency) is negative" }
        return nil
    }
}
