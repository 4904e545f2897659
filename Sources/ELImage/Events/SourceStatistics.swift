/// Counters of a source's run (any `SourceRunner`: camera, movie, still image, Y4M, raw YUV).
///
/// Once a run has ended and its last frame was delivered, `produced == delivered + dropped`.
public struct SourceStatistics: Hashable, Sendable, CustomStringConvertible {
    /// Good pictures the source made (captured, decoded, read).
    public var produced = 0
    /// Frames the graph received.
    public var delivered = 0
    /// Pictures never delivered: replaced by a newer one while the graph was busy (live sources),
    /// too late for real-time pacing, discarded by a cancel, or failed to upload. `droppedBy`
    /// says how many for each reason.
    public var dropped = 0
    /// `dropped` by reason (reasons with none are absent).
    public private(set) var droppedBy: [DropReason: Int] = [:]

    /// Why a source dropped a picture.
    public enum DropReason: String, Sendable, Hashable, CaseIterable {
        /// A newer picture took its place while the graph was busy (live sources).
        case replacedByNewer = "replaced by a newer picture"
        /// Real-time pacing: its time had passed when the graph could take it.
        case late = "too late for real-time pacing"
        /// Queued when the source was stopped.
        case stopped = "discarded at the stop"
        /// Its upload or delivery failed.
        case failed = "failed to upload"
    }

    /// Counts one dropped picture, and why.
    public mutating func countDrop(_ reason: DropReason) {
        dropped += 1
        droppedBy[reason, default: 0] += 1
    }

    /// "108 too late for real-time pacing, 2 discarded at the stop"; "" when nothing was dropped.
    public var dropReasons: String {
        DropReason.allCases.compactMap { reason in droppedBy[reason].map { "\($0) \(reason.rawValue)" } }.joined(separator: ", ")
    }
    /// Damaged pictures the source recovered from (a camera's flagged, short or undecodable
    /// frames, a decoder's concealed frames); not counted as produced.
    public var damaged = 0
    /// Frames a camera driver skipped because no buffer was free (gaps in buffer sequence numbers).
    public var skippedByDriver = 0

    /// The frames the source has come to so far, the number its next picture has in its stream:
    /// every picture it made (delivered or dropped) and every frame a camera's driver skipped.
    package var framesSoFar: Int { produced + skippedByDriver }

    package var intervalSum: Int64 = 0
    package var intervalCount = 0

    public init() {}

    /// The mean time between produced pictures in seconds, from a camera's buffer timestamps
    /// (`nil` before two frames, and for file sources).
    public var averageInterval: Double? {
        intervalCount == 0 ? nil : Double(intervalSum) / Double(intervalCount) / 1_000_000
    }

    /// `1 / averageInterval`.
    public var averageFramesPerSecond: Double? {
        averageInterval.flatMap { $0 > 0 ? 1 / $0 : nil }
    }

    public var description: String {
        var text = "produced \(produced), delivered \(delivered), dropped \(dropped)"
        if !droppedBy.isEmpty { text += " (\(dropReasons))" }
        if damaged > 0 { text += ", damaged \(damaged)" }
        if skippedByDriver > 0 { text += ", skipped by driver \(skippedByDriver)" }
        if let rate = averageFramesPerSecond {
            let rounded = (rate * 100).rounded() / 100
            text += ", \(rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) fps"
        }
        return text
    }
}
