/// The encoded packets of a recording that waits for its trigger (pre-record), in decoding
/// order: the last `window` of recording time, from the keyframe (IDR) at or before its start,
/// so that whatever the trigger's time, the file can start decoding from a keyframe. What it
/// holds is bounded by the window plus one keyframe interval (a frame, as the encoder makes
/// every frame a keyframe while the recording waits).
struct PreRecordBuffer {
    /// Recording ticks kept before the newest frame.
    let window: Int64
    private(set) var packets: [EncodedPacket] = []
    /// The bytes held, and the most held at once.
    private(set) var bytes: Int64 = 0
    private(set) var peakBytes: Int64 = 0
    /// The recording time of the newest frame out of the encoder.
    private(set) var newest: Int64 = .min

    init(window: Int64) {
        self.window = max(0, window)
    }

    /// Keeps `packet` and lets go of what is older than the window (whole keyframe intervals).
    mutating func append(_ packet: EncodedPacket) {
        packets.append(packet)
        bytes += Int64(packet.data.count)
        peakBytes = max(peakBytes, bytes)
        newest = max(newest, packet.pts)
        // The newest keyframe that still starts at or before the window: everything before it goes.
        if let start = packets.lastIndex(where: { $0.isKeyframe && $0.pts <= newest - window }), start > 0 {
            bytes -= packets[..<start].reduce(0) { $0 + Int64($1.data.count) }
            packets.removeFirst(start)
        }
    }

    /// The recording time the window starts at now (the newest frame less the window).
    var windowStart: Int64 { newest == .min ? 0 : newest - window }

    /// Empties the buffer, returning the packets from the keyframe at or before recording time
    /// `start` (the first one held when none is that early) and that keyframe's time, where the
    /// file starts: a file cannot start between keyframes (libavformat's fragmented MP4 shows the
    /// frames before an edit list's start rather than hiding them), which is why every frame
    /// waiting for the trigger is one.
    mutating func drain(from start: Int64) -> (packets: [EncodedPacket], origin: Int64) {
        defer {
            packets.removeAll()
            bytes = 0
        }
        guard let first = packets.firstIndex(where: \.isKeyframe) else { return ([], start) }
        let keyframe = packets.lastIndex(where: { $0.isKeyframe && $0.pts <= start }) ?? first
        return (Array(packets[keyframe...]), packets[keyframe].pts)
    }
}
