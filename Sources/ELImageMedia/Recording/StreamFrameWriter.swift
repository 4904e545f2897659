import ELImage

/// A live stream's `FrameWriter`, on the encoder thread: x264 encodes each frame, and the packets,
/// with the sound up to the video's time, go to the stream's `StreamConnection`, which sends them
/// on its own thread. Nothing here waits for the network.
final class StreamFrameWriter: FrameWriter {
    private let encoder: X264Encoder
    private let connection: StreamConnection
    private let audio: RecordingAudio?
    private let timescale: Int32
    private let frameDuration: Int64
    private let progress: @Sendable (H264FrameWriter.Progress) -> Void
    private var framesIn = 0
    /// HLS: the segments' length in ticks, and the time of the next keyframe a segment starts at
    /// (`ffmpeg -force_key_frames "expr:gte(t,n_forced*D)"`): the muxer can cut only at keyframes.
    private let segmentTicks: Int64?
    private var nextSegmentStart: Int64?
    /// Where the video sent so far ends (the largest pts plus a frame).
    private var videoEnd: Int64?
    private var ended = false

    /// Opens x264 for `width`×`height` frames and starts connecting to `target` (the connection's
    /// failure comes out of a later `write` or `finish`).
    init(target: StreamTarget, options: LiveStreamOptions, settings: EncoderSettings, width: Int, height: Int,
         colorSpace: ColorSpace, chromaLocation: ChromaLocation, timescale: Int32, frameDuration: Int64,
         audio: RecordingAudio?, progress: @escaping @Sendable (H264FrameWriter.Progress) -> Void) throws {
        // A viewer joins at any keyframe: MPEG-TS and HLS repeat the headers before each one (FLV
        // sends them once, in its sequence header). The VUI states the settings' frame rate as
        // fixed (the packets keep their own times): a stream timed in 90 kHz ticks made players
        // hold a frame back to guess the rate, 33 ms more glass to glass at 30 fps.
        let repeatsHeaders = target.kind != .rtmp
        encoder = try X264Encoder(width: width, height: height, settings: settings, colorSpace: colorSpace,
                                  chromaLocation: chromaLocation, timescale: timescale,
                                  keyframeInterval: settings.keyframeInterval, repeatHeaders: repeatsHeaders, constantRate: true)
        if let audio, audio.source.format.codecName != "aac" {
            throw ELImageError.invalidInput(
                what: "a live stream to \(target) carries AAC sound, and the track given is \(audio.source.format.codecName)",
                hint: "capture with AudioCodec.aac (PulseAudioCapture's default), or stream without sound")
        }
        let layout = StreamLayout(width: width, height: height, timescale: timescale, frameRate: settings.frameRate,
                                  colorTags: ColorTags(colorSpace, chromaLocation: chromaLocation),
                                  headers: try encoder.headers(), audio: audio?.source.format,
                                  sendBufferBytes: StreamLayout.sendBufferBytes(options, settings: settings))
        connection = try StreamConnection(target: target, layout: layout, options: options)
        self.audio = audio
        self.timescale = timescale
        self.frameDuration = frameDuration
        if case .hls = target.kind {
            segmentTicks = max(1, StreamMuxer.microseconds(options.hlsSegmentDuration) * Int64(timescale) / 1_000_000)
        } else {
            segmentTicks = nil
        }
        self.progress = progress
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        framesIn = number + 1
        if let packet = try encoder.encode(&buffer, pts: time, frameNumber: number, keyframe: startsSegment(at: time)) {
            try send(packet, final: false)
        }
        return .more
    }

    /// Whether the frame at `time` must be a keyframe: the first at or after each multiple of the
    /// HLS segment length from the first frame, so that every segment is that long.
    private func startsSegment(at time: Int64) -> Bool {
        guard let segmentTicks else { return false }
        guard let next = nextSegmentStart else {
            nextSegmentStart = time + segmentTicks
            return true
        }
        guard time >= next else { return false }
        var following = next + segmentTicks
        while following <= time { following += segmentTicks }  // frames missing over a whole segment
        nextSegmentStart = following
        return true
    }

    private func send(_ packet: EncodedPacket, final: Bool) throws {
        try connection.send(.video(packet, timescale: timescale))
        let end = max(videoEnd ?? .min, packet.pts + frameDuration)
        videoEnd = end
        // The sound up to where the video sent so far is shown.
        if let audio {
            for sound in try audio.packets(before: end, final: final) { try connection.send(.audio(sound)) }
        }
        report(packets: 1)
    }

    private func report(packets: Int) {
        let stream = connection.statistics
        progress(H264FrameWriter.Progress(packets: packets, bytesWritten: stream.bytesSent, audio: audio?.statistics, stream: stream))
    }

    /// Sends the frames x264 still holds and the last sound, then sends what is queued and closes
    /// the stream (waiting for the network thread, at most `closingTimeout`).
    func finish() throws {
        var flushed = framesIn
        while let packet = try encoder.flush(frameNumber: flushed) {
            try send(packet, final: false)
            flushed += 1
        }
        if let audio, let videoEnd {
            for sound in try audio.packets(before: videoEnd, final: true) { try connection.send(.audio(sound)) }
        }
        ended = true
        defer { report(packets: 0) }
        try connection.finish()
    }

    /// Nothing to put in place: what was sent has arrived.
    func publish() throws {}

    /// Stops the stream at once (a failure): the frames queued are dropped.
    func salvage(after error: ELImageError) {
        if !ended {
            ended = true
            connection.abort()
        }
        report(packets: 0)
    }

    /// Stops the stream at once. What reached the server stays there (an HLS playlist and its
    /// segments stay on disk).
    func discard() { salvage(after: .closed(what: "the stream to \(connection.target)")) }
}
