/// A packet on its way to a live stream: a video frame (times in ticks of 1/`timescale`) or a
/// sound packet, both on the recording's timeline.
enum LivePacket {
    case video(EncodedPacket, timescale: Int32)
    case audio(AudioPacket)

    /// The decoding time in seconds: the queue's order and its measure of delay.
    var seconds: Double {
        switch self {
        case let .video(packet, timescale): Double(packet.dts) / Double(timescale)
        case let .audio(packet): Double(packet.dts) / Double(packet.timescale)
        }
    }

    var bytes: Int {
        switch self {
        case let .video(packet, _): packet.data.count
        case let .audio(packet): packet.data.count
        }
    }

    var isVideo: Bool { if case .video = self { true } else { false } }
    var isKeyframe: Bool { if case let .video(packet, _) = self { packet.isKeyframe } else { false } }
}

/// What a live stream let go, and why.
struct LiveDrops: Equatable {
    /// Video frames dropped.
    var frames = 0
    /// Groups of pictures those frames belonged to (whole groups, or the tail of one whose
    /// start was sent: never a frame whose followers were sent).
    var groups = 0
    var audioPackets = 0

    static func += (left: inout LiveDrops, right: LiveDrops) {
        left.frames += right.frames
        left.groups += right.groups
        left.audioPackets += right.audioPackets
    }
}

/// The packets between the encoder and a live stream's network thread, bounded by the stream
/// time they span (`maximumDelay`) and by bytes. Past a bound it drops whole groups of pictures
/// from the oldest, up to the newest keyframe queued, with the sound before it; when the queue
/// holds no later keyframe it drops the video queued and every frame until the next keyframe. So
/// what is sent always decodes: a frame is never sent without the frames it refers to. Not
/// thread-safe: its owner locks it.
struct LivePacketQueue {
    let maximumDelay: Double
    let maximumBytes: Int
    private(set) var packets: [LivePacket] = []
    private(set) var bytes = 0
    /// Frames are dropped until the next keyframe (the start of their group was dropped or lost).
    private(set) var waitingForKeyframe = false
    /// Everything dropped so far.
    private(set) var dropped = LiveDrops()
    /// The most stream time queued at once, in seconds.
    private(set) var highestDelay = 0.0

    init(maximumDelay: Duration, maximumBytes: Int) {
        let (seconds, attoseconds) = maximumDelay.components
        self.maximumDelay = Double(seconds) + Double(attoseconds) / 1e18
        self.maximumBytes = maximumBytes
    }

    /// The stream time between the oldest packet queued and the newest, in seconds.
    var delay: Double {
        guard let first = packets.first, let last = packets.last else { return 0 }
        return max(0, last.seconds - first.seconds)
    }

    var isEmpty: Bool { packets.isEmpty }

    /// Queues `packet`, then drops what the bounds ask for.
    mutating func push(_ packet: LivePacket) {
        if waitingForKeyframe, packet.isVideo {
            guard packet.isKeyframe else {
                dropped.frames += 1
                return
            }
            waitingForKeyframe = false
        }
        packets.append(packet)
        bytes += packet.bytes
        highestDelay = max(highestDelay, delay)
        while delay > maximumDelay || bytes > maximumBytes {
            guard dropOldestGroups() else { break }
        }
    }

    /// The oldest packet, taken out to be sent.
    mutating func popFirst() -> LivePacket? {
        guard !packets.isEmpty else { return nil }
        let packet = packets.removeFirst()
        bytes -= packet.bytes
        return packet
    }

    /// After a packet was lost (a connection broke while sending it) or a new connection opened:
    /// the stream must start again at a keyframe. Drops the video before the first keyframe
    /// queued (or all of it, waiting for the next one) and the sound before that keyframe.
    mutating func restartAtKeyframe() {
        if packets.first(where: \.isVideo)?.isKeyframe == true { return }
        if let keyframe = packets.firstIndex(where: \.isKeyframe) {
            drop(before: keyframe)
        } else {
            dropAllVideo()
        }
    }

    /// Counts `packet`, taken out but never sent (its connection broke).
    mutating func countLost(_ packet: LivePacket) {
        if packet.isVideo {
            dropped.frames += 1
            if packet.isKeyframe { dropped.groups += 1 }
        } else {
            dropped.audioPackets += 1
        }
    }

    /// Drops up to the newest keyframe queued when there is one after the first packet;
    /// otherwise all the video queued (waiting for the next keyframe). False when nothing could go.
    private mutating func dropOldestGroups() -> Bool {
        if let keyframe = packets.lastIndex(where: \.isKeyframe), keyframe > 0 {
            drop(before: keyframe)
            return true
        }
        guard packets.contains(where: \.isVideo) else {
            // Only sound queued (a stream whose video stopped): the oldest goes.
            guard packets.count > 1 else { return false }
            bytes -= packets.removeFirst().bytes
            dropped.audioPackets += 1
            return true
        }
        dropAllVideo()
        return true
    }

    /// Drops every frame before `index` (a keyframe) and the sound before the keyframe's time.
    private mutating func drop(before index: Int) {
        let start = packets[index].seconds
        let gone = packets[..<index]
        let frames = gone.filter(\.isVideo)
        let keptSound = gone.filter { !$0.isVideo && $0.seconds >= start }
        dropped.frames += frames.count
        dropped.audioPackets += gone.count - frames.count - keptSound.count
        // The groups: each keyframe dropped starts one, and frames before the first of them end one
        // whose keyframe was sent already.
        dropped.groups += frames.filter(\.isKeyframe).count + (frames.first.map { $0.isKeyframe ? 0 : 1 } ?? 0)
        packets = keptSound + packets[index...]
        bytes = packets.reduce(0) { $0 + $1.bytes }
    }

    /// Drops the video queued and the sound before its newest frame; frames wait for a keyframe.
    private mutating func dropAllVideo() {
        let frames = packets.filter(\.isVideo)
        guard let newest = frames.last?.seconds else { return }
        dropped.frames += frames.count
        dropped.groups += frames.first.map { $0.isKeyframe ? frames.filter(\.isKeyframe).count : 1 + frames.filter(\.isKeyframe).count } ?? 0
        let kept = packets.filter { !$0.isVideo && $0.seconds >= newest }
        dropped.audioPackets += packets.count - frames.count - kept.count
        packets = kept
        bytes = kept.reduce(0) { $0 + $1.bytes }
        waitingForKeyframe = true
    }
}
