import ELImage

/// The audio track of one recording, on the encoder thread: pulls packets from the source as the
/// video is muxed, maps them onto the recording's timeline (zero at the first frame, pauses cut)
/// and trims them to the video's end.
final class RecordingAudio {
    let source: any AudioTrackSource
    private let timeline: @Sendable () -> AudioTimeline
    /// Packets written and their samples, for the statistics.
    private(set) var packets = 0
    private(set) var ticksWritten: Int64 = 0
    /// Packets dropped (paused stretches, before the first frame).
    private(set) var dropped = 0
    private var lastPTS: Int64?

    /// The counters so far.
    var statistics: AudioStatistics {
        var statistics = AudioStatistics()
        statistics.packetsWritten = packets
        statistics.samplesWritten = ticksWritten
        statistics.packetsDropped = dropped
        statistics.capture = source.captureStatistics
        return statistics
    }

    init(source: any AudioTrackSource, timeline: @escaping @Sendable () -> AudioTimeline) {
        self.source = source
        self.timeline = timeline
    }

    /// Lets go of the source's packets that start before recording time `videoTicks`, unwritten
    /// and uncounted: the sound before a pre-record window, so a live source's queue stays small
    /// while the recording waits for its trigger.
    func release(before videoTicks: Int64) throws {
        let line = timeline()
        guard let limit = Self.sourceLimit(before: videoTicks, on: line) else { return }
        _ = try source.packets(before: limit, final: false)
    }

    /// The source's packets that start before recording time `videoTicks` (ticks of
    /// 1/`timeline.timescale`), with times from the recording's zero, in the packets' own
    /// timescale.
    func packets(before videoTicks: Int64, final: Bool) throws -> [AudioPacket] {
        let line = timeline()
        guard let limit = Self.sourceLimit(before: videoTicks, on: line) else { return [] }
        let scale = line.timescale
        var out: [AudioPacket] = []
        for var packet in try source.packets(before: limit, final: final) {
            let sourceTicks = MediaTimeMath.ticks(packet.time, timescale: scale)
            guard let shift = line.shift(at: sourceTicks) else {
                dropped += 1
                continue
            }
            let shiftInPacketTicks = MediaTimeMath.ticks(MediaTime(value: shift, timescale: scale),
                                                            timescale: packet.timescale)
            packet.pts -= shiftInPacketTicks
            packet.dts -= shiftInPacketTicks
            // Wholly before the first frame (a priming packet ending at zero stays: the edit list
            // hides it), or overlapping the packet before after a pause: dropped.
            if packet.pts + packet.duration < 0 || (lastPTS.map { packet.dts <= $0 } ?? false) {
                dropped += 1
                continue
            }
            lastPTS = packet.dts
            packets += 1
            ticksWritten += packet.duration
            out.append(packet)
        }
        return out
    }

    /// Recording time `videoTicks` on the source's clock, with the shift in force at the end; nil
    /// before the first frame.
    private static func sourceLimit(before videoTicks: Int64, on line: AudioTimeline) -> MediaTime? {
        guard line.origin != nil else { return nil }
        let lastShift = line.shift(at: Int64.max / 4) ?? 0
        return MediaTime(value: videoTicks + lastShift, timescale: line.timescale)
    }
}
