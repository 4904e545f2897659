import Foundation

/// A live stream's counters (`RecordingStatistics.stream`), live while it runs.
///
/// Every frame the encoder gave the stream is accounted for once the stream has ended:
/// `framesQueued == framesSent + framesDropped`.
public struct StreamStatistics: Sendable, Equatable {
    /// The address, without secrets.
    public var address = ""
    /// Video frames handed to the stream by the encoder.
    public var framesQueued = 0
    /// Video frames that reached the server (written to the connection without error).
    public var framesSent = 0
    /// Sound packets that reached the server.
    public var audioPacketsSent = 0
    /// Video frames dropped: the link was slower than the stream, or the server was away.
    public var framesDropped = 0
    /// The groups of pictures those frames belonged to: the stream drops whole groups (or the
    /// rest of one whose start was sent), never a frame that others refer to alone.
    public var groupsDropped = 0
    /// Sound packets dropped with them.
    public var audioPacketsDropped = 0
    /// Bytes sent over all connections.
    public var bytesSent: Int64 = 0
    /// Connections made after the server went away.
    public var reconnections = 0
    /// Time without a connection (all outages), and whether one is going on.
    public var timeDisconnected: Duration = .zero
    public var isConnected = false
    /// The most stream time that waited to be sent at once, in seconds.
    public var highestQueueDelay = 0.0
    /// How long frames waited between the encoder and the connection (queued, then written),
    /// median and 99th percentile of the last 2048 frames sent, in seconds.
    public var sendDelayMedian = 0.0
    public var sendDelayP99 = 0.0

    public init() {}
}

extension StreamStatistics: CustomStringConvertible {
    /// "750 frames sent, 0 dropped (0 groups), 1 reconnection, 3.2 s without a connection".
    public var description: String {
        var text = "\(framesSent) frame\(framesSent == 1 ? "" : "s") sent to \(address), \(framesDropped) dropped"
        if framesDropped > 0 { text += " (\(groupsDropped) group\(groupsDropped == 1 ? "" : "s") of pictures)" }
        if reconnections > 0 {
            let seconds = Double(timeDisconnected.components.seconds) + Double(timeDisconnected.components.attoseconds) / 1e18
            text += ", \(reconnections) reconnection\(reconnections == 1 ? "" : "s"), "
                + String(format: "%.1f", seconds) + " s without a connection"
        }
        return text
    }
}
