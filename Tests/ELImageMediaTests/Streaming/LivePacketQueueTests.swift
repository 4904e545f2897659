@testable import ELImageMedia
import Testing

/// The live queue's drops, packet by packet: what remains always starts with a keyframe (or waits
/// for one), whole groups go, and every frame is counted.
@Suite("Live stream queue: whole groups of pictures dropped")
struct LivePacketQueueTests {
    /// Frame `index` at 25 fps (one tick a frame), a keyframe every `groupLength` frames.
    static func frame(_ index: Int, groupLength: Int = 10, bytes: Int = 100) -> LivePacket {
        .video(EncodedPacket(data: [UInt8](repeating: 0, count: bytes), pts: Int64(index), dts: Int64(index),
                             isKeyframe: index % groupLength == 0), timescale: 25)
    }

    static func sound(atFrame index: Int) -> LivePacket {
        .audio(AudioPacket(data: [1, 2, 3], pts: Int64(index) * 1920, dts: Int64(index) * 1920, duration: 1920, timescale: 48_000))
    }

    /// The frame numbers queued.
    static func frames(_ queue: LivePacketQueue) -> [Int] {
        queue.packets.compactMap { if case let .video(packet, _) = $0 { Int(packet.dts) } else { nil } }
    }

    @Test("Past 2 s queued, the groups before the newest keyframe go; what stays starts with it")
    func dropsToNewestKeyframe() {
        var queue = LivePacketQueue(maximumDelay: .seconds(2), maximumBytes: 1 << 30)
        for index in 0...50 { queue.push(Self.frame(index)) }
        #expect(queue.dropped == LiveDrops(), "2.0 s queued is within the bound")
        queue.push(Self.frame(51))
        #expect(Self.frames(queue) == [50, 51])
        #expect(queue.dropped == LiveDrops(frames: 50, groups: 5, audioPackets: 0))
        #expect(queue.delay <= 2)
    }

    @Test("A group whose keyframe was sent loses only its tail, counted as one group")
    func tailOfSentGroup() {
        var queue = LivePacketQueue(maximumDelay: .seconds(1), maximumBytes: 1 << 30)
        for index in 0..<5 { queue.push(Self.frame(index)) }
        for _ in 0..<5 { _ = queue.popFirst() }  // 0...4 sent
        for index in 5...31 { queue.push(Self.frame(index)) }
        // 31 - 5 = 1.04 s: frames 5...29 go (the tail of group 0, groups 10 and 20), 30 and 31 stay.
        #expect(Self.frames(queue) == [30, 31])
        #expect(queue.dropped == LiveDrops(frames: 25, groups: 3, audioPackets: 0))
    }

    @Test("A group longer than the bound: its frames go and the queue waits for the next keyframe")
    func waitsForKeyframe() {
        var queue = LivePacketQueue(maximumDelay: .seconds(2), maximumBytes: 1 << 30)
        for index in 0...51 { queue.push(Self.frame(index, groupLength: 100)) }
        #expect(queue.isEmpty)
        #expect(queue.waitingForKeyframe)
        for index in 52..<100 { queue.push(Self.frame(index, groupLength: 100)) }
        #expect(queue.isEmpty, "frames of a group whose keyframe went are never sent")
        queue.push(Self.frame(100, groupLength: 100))
        #expect(Self.frames(queue) == [100])
        #expect(!queue.waitingForKeyframe)
        #expect(queue.dropped.frames == 100 && queue.dropped.groups == 1)
    }

    @Test("Sound before the kept keyframe goes with the dropped groups; later sound stays")
    func soundGoesWithGroups() {
        var queue = LivePacketQueue(maximumDelay: .seconds(2), maximumBytes: 1 << 30)
        for index in 0...51 {
            queue.push(Self.sound(atFrame: index))
            queue.push(Self.frame(index))
        }
        let kept = queue.packets.map(\.seconds)
        #expect(kept.min() == 2.0, "everything before frame 50 (2.0 s) is gone, the sound at 2.0 s stays: \(kept)")
        #expect(queue.dropped.audioPackets == 50)
        #expect(queue.packets.first(where: \.isVideo)?.isKeyframe == true)
    }

    @Test("The byte bound drops whole groups too")
    func byteBound() {
        var queue = LivePacketQueue(maximumDelay: .seconds(60), maximumBytes: 2_500)
        for index in 0...25 { queue.push(Self.frame(index, bytes: 100)) }
        #expect(queue.bytes <= 2_500)
        #expect(Self.frames(queue) == [20, 21, 22, 23, 24, 25])
        #expect(queue.dropped.groups == 2)
    }

    @Test("A new connection starts at a keyframe: the frames before the first one queued are dropped")
    func restartAtKeyframe() {
        var queue = LivePacketQueue(maximumDelay: .seconds(10), maximumBytes: 1 << 30)
        for index in 5...12 { queue.push(Self.frame(index)) }
        queue.restartAtKeyframe()
        #expect(Self.frames(queue) == [10, 11, 12])
        #expect(queue.dropped == LiveDrops(frames: 5, groups: 1, audioPackets: 0))
        queue.restartAtKeyframe()
        #expect(Self.frames(queue) == [10, 11, 12], "a queue starting with a keyframe is left as it is")

        var tail = LivePacketQueue(maximumDelay: .seconds(10), maximumBytes: 1 << 30)
        for index in 3...6 { tail.push(Self.frame(index)) }
        tail.restartAtKeyframe()
        #expect(tail.isEmpty && tail.waitingForKeyframe)
        tail.push(Self.frame(7))
        #expect(tail.isEmpty)
        tail.push(Self.frame(10))
        #expect(Self.frames(tail) == [10])
        #expect(tail.dropped.frames == 5)
    }

    @Test("A packet lost with its connection is counted, and a lost keyframe as a group")
    func lostPackets() {
        var queue = LivePacketQueue(maximumDelay: .seconds(2), maximumBytes: 1 << 30)
        queue.countLost(Self.frame(0))
        queue.countLost(Self.frame(1))
        queue.countLost(Self.sound(atFrame: 0))
        #expect(queue.dropped == LiveDrops(frames: 2, groups: 1, audioPackets: 1))
    }
}

@Suite("Live stream addresses")
struct StreamTargetTests {
    @Test("The address decides the protocol and container; anything else is a file")
    func kinds() {
        #expect(StreamTarget("rtmp://127.0.0.1/live/x")?.kind == .rtmp)
        #expect(StreamTarget("RTMPS://a.rtmp.youtube.com/live2/key")?.kind == .rtmp)
        #expect(StreamTarget("srt://127.0.0.1:9000?latency=200000")?.kind == .srt)
        #expect(StreamTarget("/tmp/live/index.m3u8")?.kind == .hls(.mpegts))
        #expect(StreamTarget("live/index.m3u8", hlsSegments: .fmp4)?.kind == .hls(.fmp4))
        #expect(StreamTarget("out.mp4") == nil)
        #expect(StreamTarget("http://example.com/index.m3u8") == nil, "HLS is written to a folder, not uploaded")
        #expect(StreamTarget("rtmp://h/live/x")?.muxerName == "flv")
        #expect(StreamTarget("srt://h:1")?.muxerName == "mpegts")
    }

    @Test("Stream keys and SRT secrets are never printed")
    func secretsHidden() {
        #expect(StreamTarget("rtmp://a.rtmp.youtube.com/live2/abcd-efgh-1234")?.description == "rtmp://a.rtmp.youtube.com/live2/…")
        // The only path component may be the key (rtmp://host/KEY): hidden too.
        #expect(StreamTarget("rtmp://host/abcd-efgh-1234")?.description == "rtmp://host/…")
        #expect(StreamTarget("rtmp://alice:S3cretPW@host:1935/live/KEY")?.description == "rtmp://…@host:1935/live/…")
        #expect(StreamTarget("rtmps://host/app/sub/KEY?key=abc&region=eu&token=t0k")?.description
                == "rtmps://host/app/…?key=…&region=eu&token=…")
        #expect(StreamTarget("srt://h:9000?passphrase=secret123&latency=200000")?.description == "srt://h:9000?passphrase=…&latency=200000")
        #expect(StreamTarget("srt://h:9000?streamid=#!::r=live/x")?.description == "srt://h:9000?streamid=…")
        #expect(StreamTarget("live/index.m3u8")?.description == "live/index.m3u8")
        // In any text (FFmpeg's log lines): every RTMP and SRT address, up to a space or a quote.
        #expect(AddressRedaction.redactAddresses(in: "[srt @ 0x1] Connection to srt://h:9?passphrase=pw&streamid=s failed: 'rtmp://u:p@h/a/k'")
                == "[srt @ 0x1] Connection to srt://h:9?passphrase=…&streamid=… failed: 'rtmp://…@h/a/…'")
        #expect(AddressRedaction.redactAddresses(in: "tcp://127.0.0.1:1935 then RTMPS://h/app/key") == "tcp://127.0.0.1:1935 then RTMPS://h/app/…")
        #expect(AddressRedaction.redactAddresses(in: "no address, ://, a://") == "no address, ://, a://")
    }
}
