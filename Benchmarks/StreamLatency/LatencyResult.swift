import ELImageMedia
import Foundation

/// One protocol's latencies: per frame, and their percentiles, with where ELImage's share went.
struct LatencyResult: Codable {
    let `protocol`: StreamLatencyCommand.Transport
    let sender: StreamLatencyCommand.Sender
    let sent: Int
    let received: Int
    /// Glass to glass, milliseconds.
    let p50: Double
    let p90: Double
    let p99: Double
    let maximum: Double
    /// Inside ELImage, per frame on average: reading the picture back and x264 (the encoder
    /// thread), and the wait for the network (median, 99th percentile), milliseconds.
    let readbackMean: Double
    let encodeMean: Double
    let sendWaitMedian: Double
    let sendWaitP99: Double
    let framesDropped: Int
    /// Per frame: number, latency in milliseconds (empty when it never arrived).
    let perFrame: [Double?]

    init(protocol chosen: StreamLatencyCommand.Transport, sender: StreamLatencyCommand.Sender, sent times: [ContinuousClock.Instant],
         received arrivals: [Int: ContinuousClock.Instant], statistics: RecordingStatistics) {
        `protocol` = chosen
        self.sender = sender
        sent = times.count
        perFrame = times.enumerated().map { number, sentAt in
            arrivals[number].map { Self.milliseconds($0 - sentAt) }
        }
        let latencies = perFrame.compactMap { $0 }.sorted()
        received = latencies.count
        func percentile(_ percent: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int((percent / 100 * Double(latencies.count - 1)).rounded()))]
        }
        p50 = percentile(50)
        p90 = percentile(90)
        p99 = percentile(99)
        maximum = latencies.last ?? 0
        let frames = Double(max(1, statistics.encoded))
        readbackMean = Self.milliseconds(statistics.readbackTime) / frames
        encodeMean = Self.milliseconds(statistics.encodeTime) / frames
        sendWaitMedian = (statistics.stream?.sendDelayMedian ?? 0) * 1000
        sendWaitP99 = (statistics.stream?.sendDelayP99 ?? 0) * 1000
        framesDropped = statistics.stream?.framesDropped ?? 0
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    var line: String {
        String(format: "%@ from %@: %d of %d frames seen; glass to glass p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms; "
               + "in ELImage per frame: readback %.1f ms, x264 %.1f ms, network wait p50 %.1f ms / p99 %.1f ms; %d dropped",
               `protocol`.rawValue.uppercased(), sender.rawValue, received, sent, p50, p90, p99, maximum, readbackMean, encodeMean,
               sendWaitMedian, sendWaitP99, framesDropped)
    }

    var csv: String {
        "frame,latency_ms\n" + perFrame.enumerated().map { number, latency in
            "\(number)," + (latency.map { String(format: "%.2f", $0) } ?? "")
        }.joined(separator: "\n") + "\n"
    }
}
