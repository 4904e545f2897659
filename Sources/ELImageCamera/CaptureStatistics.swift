/// What a camera has captured, delivered and dropped since `start()` (kept through restarts and
/// device switches).
///
/// Once the camera is stopped and its last frame delivered, `captured == delivered + dropped`.
public struct CaptureStatistics: Hashable, Sendable, CustomStringConvertible {
    /// Good frames taken from the driver.
    public var captured = 0
    /// Frames sent through the graph.
    public var delivered = 0
    /// Captured frames never delivered: replaced by a newer frame while the graph was still busy
    /// (live sources keep only the newest), or that failed to upload.
    public var dropped = 0
    /// Frames the driver marked damaged (`V4L2_BUF_FLAG_ERROR`), too short, or undecodable JPEG;
    /// not counted as captured. The first undecodable frame of each device session is also
    /// reported to the error handler.
    public var corrupted = 0
    /// Frames the driver skipped because no buffer was free, seen as gaps in buffer sequence numbers.
    public var skippedByDriver = 0

    var intervalSum: Int64 = 0
    var intervalCount = 0

    public init() {}

    /// The mean time between captured frames in seconds, from the buffer timestamps (`nil` before
    /// two frames).
    public var averageInterval: Double? {
        intervalCount == 0 ? nil : Double(intervalSum) / Double(intervalCount) / 1_000_000
    }

    /// `1 / averageInterval`.
    public var averageFramesPerSecond: Double? {
        averageInterval.flatMap { $0 > 0 ? 1 / $0 : nil }
    }

    public var description: String {
        var text = "captured \(captured), delivered \(delivered), dropped \(dropped)"
        if corrupted > 0 { text += ", corrupted \(corrupted)" }
        if skippedByDriver > 0 { text += ", skipped by driver \(skippedByDriver)" }
        if let rate = averageFramesPerSecond { text += ", \(FrameInterval.format(rate)) fps" }
        return text
    }
}
