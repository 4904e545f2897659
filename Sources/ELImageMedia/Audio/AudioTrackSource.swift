import ELImage

/// A track of encoded audio that travels beside the video graph, from a source (a movie's audio
/// track, a microphone) to a file sink (`VideoEncoder` recording MP4): audio does not go through
/// the GPU. Its packets are stamped on the same clock as the frames the graph carries, so the
/// recording puts both on one timeline: the recording's origin is its first frame's time, and a
/// pause removes the same stretch from both tracks (see `AudioTimeline`).
///
/// The encoder thread pulls packets as it muxes the video (interleaving them into the same
/// fragments), so a source is used from that one thread, apart from `close()`.
public protocol AudioTrackSource: AnyObject, Sendable {
    /// The codec and parameters of the packets.
    var format: AudioTrackFormat { get }

    /// The packets, in order and each once, that start before `time` (on the frames' clock).
    /// - Parameters:
    ///   - time: the end of the packets wanted, on the frames' clock.
    ///   - final: the recording ends at `time`: a live source waits (a bounded time) until it has
    ///     captured up to it.
    /// - Throws: `ELImageError` when the source fails (a damaged file, a device that vanished).
    func packets(before time: MediaTime, final: Bool) throws -> [AudioPacket]

    /// A live source's counters (samples captured, dropped, drift); nil for a file's track.
    var captureStatistics: AudioCaptureStatistics? { get }

    /// The recording that read this track has ended (the encoder thread says so once it has
    /// pulled its last packets): a file's track lets go of the file, a live source stops capturing
    /// without waiting (its `close()`, or its render context's, joins the capture thread).
    /// Idempotent. Not an end of the node: a hook, as `registered(with:)` is.
    func recordingEnded()
}

extension AudioTrackSource {
    /// None: a file's track.
    public var captureStatistics: AudioCaptureStatistics? { nil }
}
