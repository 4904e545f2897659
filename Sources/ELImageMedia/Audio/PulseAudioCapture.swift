import CPulse
import ELImage
import Foundation

/// Sound from a PulseAudio (or PipeWire) source, captured on its own thread and encoded to AAC or
/// Opus as it comes, stamped on the recording's clock: hand it to `VideoEncoder.start(... audio:)`
/// and it is muxed beside the frames.
///
/// ```swift
/// let microphone = try PulseAudioCapture(options: .init(device: "default", clock: .monotonic))
/// try encoder.start(recordingTo: "clip.mp4", audio: .track(microphone))
/// ...
/// try await encoder.finish(); await microphone.close()
/// ```
///
/// **Format.** The source is read in its native rate and channels as 32-bit floats (the server
/// converts only the sample format); libswresample converts to the encoder's rate, channels and
/// sample format.
///
/// **Time.** A block's first sample was captured at its arrival time minus the server's reported
/// latency and the block's own length (monotonic clock); the samples counted from the first block
/// give the packets' times, and `DriftEstimator` compares the two. Every second, libswresample
/// stretches or squeezes the next second by where the device's clock will be then
/// (`swr_set_compensation`, at most 1 %; counted as samples inserted or dropped), so the sound
/// follows the monotonic clock continuously: a device 50 ppm off is resampled by 50 ppm, not cut
/// back in audible steps. A gap of more than a second (an overrun, a suspended device) is filled
/// with silence. `Options.clock` maps monotonic time onto the frames' timestamps.
///
/// **Failures.** The initializer throws `AudioCaptureError` (no server, no such device, a format
/// the encoder refuses). A device that vanishes while recording ends the sound there (the video
/// goes on): `failure` says why, and it is one `.failed` event on the events of the render context
/// the capture is registered with (`RenderContext.register(_:stage:)`).
public final class PulseAudioCapture: AudioTrackSource, ClosableNode, Sendable {

    /// What to capture and how to encode it.
    public struct Options: Sendable {
        /// A source name from `AudioDevices.list()` (`elimage audio-devices`), or "default".
        public var device: String
        /// A server address (`unix:/path/pulse.sock`); nil: `PULSE_SERVER` or the user's server.
        public var server: String?
        public var codec: AudioCodec
        /// The recorded rate (Opus is always 48 kHz) and channels (nil: the source's, at most 2).
        public var sampleRate: Int
        public var channels: Int?
        /// Bits per second of the encoded sound.
        public var bitrate: Int
        /// Maps the monotonic clock onto the frames' timestamps.
        public var clock: MediaClock

        public init(device: String = "default", server: String? = nil, codec: AudioCodec = .aac, sampleRate: Int = 48_000,
                    channels: Int? = nil, bitrate: Int = 128_000, clock: MediaClock = .monotonic) {
            self.device = device
            self.server = server
            self.codec = codec
            self.sampleRate = sampleRate
            self.channels = channels
            self.bitrate = bitrate
            self.clock = clock
        }
    }

    public let format: AudioTrackFormat
    /// The source captured.
    public let device: AudioDevice
    public let options: Options
    /// Where a failure while capturing goes: the context the capture is registered with.
    private let messenger = NodeMessenger()

    fileprivate struct CaptureShared {
        var queue: [AudioPacket] = []
        /// Where the sound captured so far ends, in output samples on the monotonic clock.
        var capturedEnd: Int64?
        var statistics = AudioCaptureStatistics()
        var levels = AudioLevels()
        var failure: AudioCaptureError?
        var stopping = false
        var ended = false
    }
    private let shared = Locked(CaptureShared())
    /// The encoded sound's sample rate.
    private let sampleRate: Int
    private let thread: JoinableThread

    /// Connects to the source and starts capturing at once (what comes before a recording's
    /// first frame is left out of it).
    public init(options: Options = Options()) throws(AudioCaptureError) {
        self.options = options
        let device = try AudioDevices.find(options.device, server: options.server)
        self.device = device
        let channels = options.channels ?? min(device.channels, 2)
        guard (1...8).contains(channels), device.sampleRate > 0, device.channels > 0 else {
            throw .unsupportedFormat(what: "the source \(device.name)",
                                     reason: "\(device.channels) channels at \(device.sampleRate) Hz, \(channels) asked")
        }
        let encoder = try AudioEncoder(codec: options.codec, inputRate: device.sampleRate, inputChannels: device.channels,
                                       sampleRate: options.sampleRate, channels: channels, bitrate: options.bitrate)
        format = encoder.format
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(device.sampleRate), channels: UInt8(device.channels))
        let blockBytes = UInt32(device.sampleRate / 50 * device.channels * 4)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: blockBytes)
        var code: Int32 = 0
        guard let simple = pa_simple_new(options.server, "elimage", PA_STREAM_RECORD, device.name, "recording",
                                         &spec, nil, &attributes, &code) else {
            throw .noServer(server: options.server ?? "the default server", reason: String(cString: pa_strerror(code)))
        }
        sampleRate = encoder.sampleRate
        // Handed to the capture thread, used by it alone.
        nonisolated(unsafe) let loop = CaptureLoop(device: device, stream: simple, encoder: encoder, shared: shared,
                                                   messenger: messenger)
        thread = JoinableThread(name: "ELImage.audio", group: nil) { loop.run() }
        do {
            try thread.start()
        } catch {
            throw .unsupportedFormat(what: "the capture thread", reason: "\(error)")
        }
    }

    deinit { shared.withLock { $0.stopping = true } }

    /// The last block's peak and RMS per channel.
    public var levels: AudioLevels { shared.withLock { $0.levels } }
    /// Samples captured, dropped and inserted, the drift and the latency.
    public var captureStatistics: AudioCaptureStatistics? { shared.withLock { $0.statistics } }
    /// Why capture ended early, if it did.
    public var failure: AudioCaptureError? { shared.withLock { $0.failure } }

    public func recordingEnded() { requestStop() }

    private func requestStop() { shared.withLock { $0.stopping = true } }

    public func registered(with context: RenderContext) {
        messenger.meet(context, as: self)
        thread.adopt(into: context.threads)  // the context's close joins it, as its other threads
    }

    /// Stops capturing and joins the capture thread (also done by a render context it is
    /// registered with, at its `close()`).
    public func close() async {
        requestStop()
        await thread.join()
    }

    public func packets(before time: MediaTime, final: Bool) throws -> [AudioPacket] {
        guard let offset = options.clock.offsetMicroseconds else { return [] }
        let rate = Int64(sampleRate)
        let offsetTicks = offset * rate / 1_000_000
        let limit = MediaTimeMath.ticks(time, timescale: Int32(rate)) + offsetTicks
        if final {
            // Wait (a bounded time) until the sound captured reaches the end of the video.
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                let (end, ended) = shared.withLock { ($0.capturedEnd, $0.ended) }
                if ended || (end ?? .min) >= limit { break }
                usleep(5000)
            }
        }
        return shared.withLock { shared in
            let count = shared.queue.firstIndex { $0.pts >= limit } ?? shared.queue.count
            let taken = shared.queue.prefix(count).map { packet -> AudioPacket in
                var packet = packet
                packet.pts -= offsetTicks
                packet.dts -= offsetTicks
                return packet
            }
            shared.queue.removeFirst(count)
            return taken
        }
    }

}

/// The capture thread's work: it owns the libpulse stream and the encoder, and shares only what
/// `PulseAudioCapture` reads (the packets, the counters, the failure).
private final class CaptureLoop {
    private let device: AudioDevice
    private let stream: OpaquePointer
    private let encoder: AudioEncoder
    private let shared: Locked<PulseAudioCapture.CaptureShared>
    private let messenger: NodeMessenger

    init(device: AudioDevice, stream: OpaquePointer, encoder: AudioEncoder, shared: Locked<PulseAudioCapture.CaptureShared>,
         messenger: NodeMessenger) {
        self.device = device
        self.stream = stream
        self.encoder = encoder
        self.shared = shared
        self.messenger = messenger
    }

    deinit { pa_simple_free(stream) }

    func run() {
        let rate = device.sampleRate, channels = device.channels
        let outputRate = Double(encoder.sampleRate)
        let block = rate / 50
        var samples = [Float](repeating: 0, count: block * channels)
        var drift = DriftEstimator()
        var anchor: Int64?          // the first sample's monotonic time, microseconds
        var first: Int64 = 0
        var captured: Int64 = 0     // input frames
        var stretched: Int64 = 0    // output samples added (+) or removed (−) by resampling
        var filled = 0.0            // seconds of silence put into gaps
        while !shared.withLock({ $0.stopping }) {
            var code: Int32 = 0
            let read = samples.withUnsafeMutableBytes { pa_simple_read(stream, $0.baseAddress, $0.count, &code) }
            guard read >= 0 else {
                fail(.deviceVanished(name: device.name, reason: String(cString: pa_strerror(code))))
                break
            }
            let now = MediaClock.nowMicroseconds()
            // (pa_usec_t)-1 when the stream died between the read and this call.
            guard let latency = Int64(exactly: pa_simple_get_latency(stream, &code)) else {
                fail(.deviceVanished(name: device.name, reason: String(cString: pa_strerror(code))))
                break
            }
            let start = now - latency - Int64(block) * 1_000_000 / Int64(rate)
            if anchor == nil { (anchor, first) = (start, now) }
            guard let anchor else { break }
            let counted = anchor + captured * 1_000_000 / Int64(rate)
            let elapsed = Double(now - first) / 1_000_000
            let settled = drift.add(error: Double(start - counted) / 1_000_000 - filled, at: elapsed)
            var inserted: Int64 = 0, dropped: Int64 = 0
            var packets: [AudioPacket] = []
            do {
                let behind = drift.latest.map { $0 - Double(stretched) / outputRate } ?? 0
                if settled, behind > 1 {
                    // A gap (overrun, suspended device): silence in its place.
                    let silence = [Float](repeating: 0, count: Int(behind * Double(rate)) * channels)
                    packets += try silence.withUnsafeBufferPointer { try encoder.encode($0, frames: $0.count / channels) }
                    inserted = Int64(behind * outputRate)
                    filled += behind
                    drift.shift(by: -behind)
                } else if settled, let target = drift.offset(at: elapsed + 1) {
                    // Follow the device's clock: over the next second, stretch or squeeze the sound
                    // by where the offset will be then, at most 1 %.
                    let limit = outputRate / 100
                    let correction = Int64(min(limit, max(-limit, ((target * outputRate) - Double(stretched)).rounded())))
                    if correction != 0 {
                        encoder.compensate(Int(correction), over: Int(outputRate))
                        stretched += correction
                        if correction > 0 { inserted = correction } else { dropped = -correction }
                    }
                }
                packets += try samples.withUnsafeBufferPointer { try encoder.encode($0, frames: block) }
            } catch {
                fail(error as? AudioCaptureError ?? .unsupportedFormat(what: "the sound encoder", reason: "\(error)"))
                break
            }
            captured += Int64(block)
            let levels = samples.withUnsafeBufferPointer { AudioLevels(interleaved: $0, channels: channels) }
            let anchorTicks = anchor * Int64(outputRate) / 1_000_000
            shared.withLock { shared in
                for var packet in packets {
                    packet.pts += anchorTicks
                    packet.dts += anchorTicks
                    shared.queue.append(packet)
                    shared.capturedEnd = packet.pts + packet.duration
                }
                // Nothing is kept longer than a minute when no recording takes it.
                if shared.queue.count > 60 * Int(outputRate) / 1024 { shared.queue.removeFirst(shared.queue.count / 2) }
                shared.levels = levels
                shared.statistics.samplesCaptured += Int64(block)
                shared.statistics.samplesInserted += inserted
                shared.statistics.samplesDropped += dropped
                shared.statistics.driftPPM = -drift.driftPPM  // the statistics count a fast device positive
                shared.statistics.latency = Double(latency) / 1_000_000
            }
        }
        // The encoder's last packets (nobody may want them, but the encoder ends drained).
        let last = (try? encoder.finish()) ?? []
        shared.withLock { shared in
            if let anchor {
                let anchorTicks = anchor * Int64(outputRate) / 1_000_000
                shared.queue += last.map { packet in
                    var packet = packet
                    packet.pts += anchorTicks
                    packet.dts += anchorTicks
                    return packet
                }
            }
            shared.ended = true
        }
    }

    private func fail(_ error: AudioCaptureError) {
        let first = shared.withLock { shared -> Bool in
            guard shared.failure == nil else { return false }
            shared.failure = error
            return true
        }
        if first { messenger.report(error) }
    }
}
