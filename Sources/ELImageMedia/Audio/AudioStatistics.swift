/// The audio side of a recording's counters (`RecordingStatistics.audio`).
public struct AudioStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Audio packets written to the file.
    public var packetsWritten = 0
    /// Samples (per channel) in the packets written.
    public var samplesWritten: Int64 = 0
    /// Packets left out: captured while paused, before the first frame, or after the video's end.
    public var packetsDropped = 0
    /// What a live source (a microphone) reports: samples captured, dropped or inserted to follow
    /// the video clock, and the drift it measured. Nil for a movie's track.
    public var capture: AudioCaptureStatistics?

    public init() {}

    /// E.g. "250 packets (240000 samples) written, 0 dropped", then the capture's counters.
    public var description: String {
        "\(packetsWritten) packets (\(samplesWritten) samples) written, \(packetsDropped) dropped"
            + (capture.map { "; \($0)" } ?? "")
    }
}

/// Counters of a live audio source.
public struct AudioCaptureStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Samples (per channel) captured from the device.
    public var samplesCaptured: Int64 = 0
    /// Samples dropped to follow the video clock (the device ran fast), or lost in overruns.
    public var samplesDropped: Int64 = 0
    /// Silent samples inserted to follow the video clock (the device ran slow, or a gap).
    public var samplesInserted: Int64 = 0
    /// The device's clock against the monotonic clock, in parts per million (positive: the device
    /// delivers more samples per second than its nominal rate).
    public var driftPPM: Double = 0
    /// The server's reported latency at the last reading, in seconds.
    public var latency: Double = 0

    public init() {}

    /// E.g. "96000 samples captured, 0 inserted, 0 dropped, drift 12 ppm, latency 20 ms".
    public var description: String {
        "\(samplesCaptured) samples captured, \(samplesInserted) inserted, \(samplesDropped) dropped, "
            + "drift \(Int(driftPPM.rounded())) ppm, latency \(Int((latency * 1000).rounded())) ms"
    }
}
