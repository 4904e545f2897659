import ELImage
import Foundation

// What `print(summary)` and `print(encoder.statistics)` show: a short line of the numbers a user
// checks (frames, duration, size, drops), not the reflection of every stored property.

extension RecordingSummary: CustomStringConvertible {
    /// E.g. "out.mp4: 132 frames, 5.280 s, 1280x720, 1.2 MB, 0 dropped (end of stream)".
    public var description: String {
        "\(path): \(statistics.encoded) frame\(statistics.encoded == 1 ? "" : "s"), "
            + "\(RecordingText.seconds(statistics.recordedDuration)), \(width)x\(height), "
            + "\(RecordingText.bytes(statistics.bytesWritten)), \(RecordingText.drops(statistics)) (\(reason))"
    }
}

extension RecordingStatistics: CustomStringConvertible {
    /// E.g. "132 frames in, 132 encoded, 0 dropped, 5.280 s, 1.2 MB in 3 fragments, 240.5 fps"; then
    /// the audio track's counters when it wrote any.
    public var description: String {
        var text = "\(framesIn) frames in, \(encoded) encoded, \(RecordingText.drops(self)), "
            + "\(RecordingText.seconds(recordedDuration)), \(RecordingText.bytes(bytesWritten)) in \(fragmentsWritten) "
            + "fragment\(fragmentsWritten == 1 ? "" : "s"), " + String(format: "%.1f fps", achievedFramesPerSecond)
        if audio != AudioStatistics() { text += "; audio: \(audio)" }
        return text
    }
}

extension RecordingStopReason: CustomStringConvertible {
    /// "stop requested", "end of stream", "duration limit", "size limit".
    public var description: String {
        switch self {
        case .requested: "stop requested"
        case .endOfStream: "end of stream"
        case .durationLimit: "duration limit"
        case .sizeLimit: "size limit"
        }
    }
}

/// The pieces of the recording descriptions.
private enum RecordingText {
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f s", Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Decimal units, as file managers show them: "812 bytes", "45.3 kB", "1.2 MB", "3.40 GB".
    static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        if count < 1000 { return "\(count) byte\(count == 1 ? "" : "s")" }
        if value < 1e6 { return String(format: "%.1f kB", value / 1e3) }
        if value < 1e9 { return String(format: "%.1f MB", value / 1e6) }
        return String(format: "%.2f GB", value / 1e9)
    }

    static func drops(_ statistics: RecordingStatistics) -> String {
        var text = "\(statistics.dropped) dropped"
        if statistics.droppedQueueFull > 0 { text += " (\(statistics.droppedQueueFull) on a full queue)" }
        return text
    }
}
