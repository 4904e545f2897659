import ELImageCamera

/// A virtual camera's statistics in one line: "300 frames written as YUYV 1280x720 @ 30 fps,
/// 4 dropped (3 while the device was away), 1 reconnection".
struct VirtualCameraReport: CustomStringConvertible {
    let statistics: VirtualCameraStatistics

    init(_ statistics: VirtualCameraStatistics) { self.statistics = statistics }

    var description: String {
        var text = "\(statistics.framesWritten) frame\(statistics.framesWritten == 1 ? "" : "s") written"
        if let mode = statistics.mode { text += " as \(mode)" }
        let dropped = statistics.framesDropped
        if dropped > 0 {
            let reasons = [(statistics.droppedQueueFull, "the writer behind"), (statistics.droppedNoBuffer, "no driver buffer free"),
                           (statistics.droppedDisconnected, "the device away"), (statistics.droppedReconfiguring, "the device reconfigured")]
                .filter { $0.0 > 0 }.map { "\($0.0) with \($0.1)" }
            text += ", \(dropped) dropped (\(reasons.joined(separator: ", ")))"
        }
        if statistics.reconnections > 0 {
            text += ", \(statistics.reconnections) reconnection\(statistics.reconnections == 1 ? "" : "s")"
        }
        return text
    }
}
