import CFFmpeg
import ELImage
import Foundation

/// One connection of a live stream (or the HLS muxer's files): libavformat's FLV, MPEG-TS or HLS
/// muxer over its own network protocol (RTMP, SRT) or files, opened with the stream's layout.
/// Used by the stream's network thread only.
final class StreamMuxer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let target: StreamTarget
    private let layout: StreamLayout
    private let interrupt: NetworkInterrupt
    private var videoTimeBase = AVRational(num: 1, den: 90_000)
    private var audioTimeBase = AVRational(num: 1, den: 48_000)
    private var audioIndex: Int32 = 1
    private var headerWritten = false
    /// SRT: how long the receiver holds each packet before handing it on (its latency).
    private var receiverHoldTime: Duration?
    /// HLS: the muxer's files, opened as ELImage opens its outputs.
    private let fileAccess = HLSFileAccess()

    /// Connects to `target` (an RTMP publish, an SRT call) or opens the HLS playlist, and writes
    /// the stream's header. Waits at most `options.networkTimeout`.
    /// - Throws: `ELImageError.network` when the server cannot be reached or refuses the stream;
    ///   `ELImageError.io` when the HLS folder cannot be written.
    init(target: StreamTarget, layout: StreamLayout, options: LiveStreamOptions, interrupt: NetworkInterrupt) throws {
        self.target = target
        self.layout = layout
        self.interrupt = interrupt
        _ = Self.initializeNetwork
        do {
            try open(options: options)
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    private func open(options: LiveStreamOptions) throws {
        var made: UnsafeMutablePointer<AVFormatContext>?
        var code = avformat_alloc_output_context2(&made, nil, target.muxerName, target.url)
        guard code >= 0, let context = made else { throw failure("set up the \(target.muxerName) muxer for", code) }
        self.context = context
        context.pointee.interrupt_callback = interrupt.callback
        try addStreams(to: context)

        var muxerOptions: OpaquePointer?
        defer { av_dict_free(&muxerOptions) }
        var protocolOptions: OpaquePointer?
        defer { av_dict_free(&protocolOptions) }
        let timeout = Self.microseconds(options.networkTimeout)
        switch target.kind {
        case .rtmp:
            av_dict_set(&muxerOptions, "flvflags", "no_duration_filesize", 0)
            av_dict_set(&protocolOptions, "rw_timeout", "\(timeout)", 0)
            av_dict_set(&protocolOptions, "rtmp_live", "live", 0)
            // Passed down to the TCP socket: a slow link pushes back within this, not megabytes later.
            av_dict_set(&protocolOptions, "send_buffer_size", "\(layout.sendBufferBytes)", 0)
        case .srt:
            av_dict_set(&protocolOptions, "connect_timeout", "\(timeout / 1000)", 0)
            av_dict_set(&protocolOptions, "rw_timeout", "\(timeout)", 0)
            av_dict_set(&protocolOptions, "latency", "\(Self.microseconds(options.srtLatency))", 0)
            av_dict_set(&protocolOptions, "pkt_size", "1316", 0)
            let linger = Int((Double(Self.microseconds(options.closingTimeout)) / 1e6).rounded(.up))
            av_dict_set(&protocolOptions, "linger", "\(linger)", 0)
            receiverHoldTime = options.srtLatency
            // Each 1316-byte datagram (seven TS packets) goes out as it fills, not a 64 KiB buffer later.
            av_dict_set(&muxerOptions, "flush_packets", "1", 0)
        case .hls(let segments):
            if let problem = target.pathProblem {
                throw ELImageError.invalidInput(what: "\(target) cannot be written", hint: problem)
            }
            fileAccess.install(on: context)
            let seconds = Double(Self.microseconds(options.hlsSegmentDuration)) / 1e6
            av_dict_set(&muxerOptions, "hls_time", String(format: "%.3f", seconds), 0)
            av_dict_set(&muxerOptions, "hls_list_size", "\(options.hlsPlaylistLength)", 0)
            var flags = "program_date_time+independent_segments+temp_file"
            if options.hlsPlaylistLength > 0 { flags += "+delete_segments" }
            av_dict_set(&muxerOptions, "hls_flags", flags, 0)
            av_dict_set(&muxerOptions, "hls_segment_type", segments.rawValue, 0)
            let base = (target.url as NSString).deletingPathExtension
            let name = (base as NSString).lastPathComponent
            av_dict_set(&muxerOptions, "hls_segment_filename", "\(base)-%05d.\(segments == .fmp4 ? "m4s" : "ts")", 0)
            if segments == .fmp4 { av_dict_set(&muxerOptions, "hls_fmp4_init_filename", "\(name)-init.mp4", 0) }
        }

        interrupt.arm(for: options.networkTimeout)
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            var callback = context.pointee.interrupt_callback
            code = avio_open2(&context.pointee.pb, target.url, AVIO_FLAG_WRITE, &callback, &protocolOptions)
            guard code >= 0 else { throw failure("connect to", code) }
        }
        code = avformat_write_header(context, &muxerOptions)
        guard code >= 0 else { throw failure("start the stream at", code) }
        headerWritten = true
        videoTimeBase = context.pointee.streams[0]?.pointee.time_base ?? videoTimeBase
        if layout.audio != nil { audioTimeBase = context.pointee.streams[Int(audioIndex)]?.pointee.time_base ?? audioTimeBase }
        guard let packet = av_packet_alloc() else { throw failure("allocate for", elimage_averror(ENOMEM)) }
        self.packet = packet
    }

    private func addStreams(to context: UnsafeMutablePointer<AVFormatContext>) throws {
        guard let stream = avformat_new_stream(context, nil), let parameters = stream.pointee.codecpar else {
            throw failure("add a video stream to", elimage_averror(ENOMEM))
        }
        let description = H264StreamDescription(width: layout.width, height: layout.height, tags: layout.colorTags,
                                                headers: layout.headers)
        guard description.fill(parameters) else { throw failure("allocate for", elimage_averror(ENOMEM)) }
        stream.pointee.time_base = AVRational(num: 1, den: layout.timescale)
        stream.pointee.avg_frame_rate = AVRational(num: Int32(layout.frameRate.numerator), den: Int32(layout.frameRate.denominator))
        if let audio = layout.audio {
            guard let track = avformat_new_stream(context, nil), track.pointee.codecpar != nil else {
                throw failure("add an audio stream to", elimage_averror(ENOMEM))
            }
            let code = avcodec_parameters_copy(track.pointee.codecpar, audio.parameters)
            guard code >= 0 else { throw failure("add an audio stream to", code) }
            track.pointee.codecpar.pointee.codec_tag = 0
            track.pointee.time_base = AVRational(num: 1, den: Int32(max(1, audio.sampleRate)))
            audioIndex = track.pointee.index
        }
    }

    /// Sends `live`; gives up at `deadline` (a server that stopped reading).
    func write(_ live: LivePacket, until deadline: ContinuousClock.Instant) throws {
        guard let context, let packet else { return }
        av_packet_unref(packet)
        let data: [UInt8] = switch live {
        case let .video(encoded, _): encoded.data
        case let .audio(audio): audio.data
        }
        var code = av_new_packet(packet, Int32(data.count))
        guard code >= 0, let bytes = packet.pointee.data else { throw failure("allocate for", code) }
        data.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { bytes.update(from: base, count: data.count) }
        }
        // (av_new_packet resets the times: they are set after it.)
        switch live {
        case let .video(encoded, timescale):
            let base = AVRational(num: 1, den: timescale)
            packet.pointee.stream_index = 0
            packet.pointee.pts = av_rescale_q(encoded.pts, base, videoTimeBase)
            packet.pointee.dts = av_rescale_q(encoded.dts, base, videoTimeBase)
            if encoded.isKeyframe { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        case let .audio(audio):
            let base = AVRational(num: 1, den: audio.timescale)
            packet.pointee.stream_index = audioIndex
            packet.pointee.pts = av_rescale_q(audio.pts, base, audioTimeBase)
            packet.pointee.dts = av_rescale_q(audio.dts, base, audioTimeBase)
            packet.pointee.duration = av_rescale_q(audio.duration, base, audioTimeBase)
            packet.pointee.flags |= AV_PKT_FLAG_KEY
        }
        interrupt.arm(until: deadline)
        code = av_write_frame(context, packet)
        av_packet_unref(packet)
        guard code >= 0 else { throw failure("send to", code) }
        // libavformat's HLS muxer goes on when a segment cannot be opened; ELImage does not.
        if let refused = fileAccess.lastFailure { throw refused }
    }

    /// Ends the stream: writes the muxer's trailer (an HLS playlist's end) and closes the
    /// connection (RTMP unpublishes; SRT lingers until its data is sent), by `deadline`.
    func close(by deadline: ContinuousClock.Instant) throws {
        guard let context else { return }
        interrupt.arm(until: deadline)
        var code: Int32 = 0
        if headerWritten {
            headerWritten = false
            code = av_write_trailer(context)
        }
        if code >= 0, let hold = receiverHoldTime { waitForDelivery(heldFor: hold, by: deadline) }
        release()
        guard code >= 0 else { throw failure("finish the stream at", code) }
        if let refused = fileAccess.lastFailure { throw refused }
    }

    /// Stays connected until a live SRT receiver has handed on the last packets sent. It holds
    /// each for its latency after it was sent, and drops what it still holds when the
    /// connection goes; and the socket's linger does not protect them here: libavformat's SRT
    /// socket is non-blocking, so `srt_close` returns at once and leaves the lingering to
    /// libsrt's collector thread, which `srt_cleanup` (in the same close) stops. So this waits
    /// the latency, and as long again (at least 100 ms) for a loaded machine on either end;
    /// it stops early at `deadline` or when the stream is aborted.
    private func waitForDelivery(heldFor hold: Duration, by deadline: ContinuousClock.Instant) {
        let until = min(deadline, .now + hold + max(hold, .milliseconds(100)))
        while !interrupt.isAborted, .now < until {
            Thread.sleep(forTimeInterval: min(0.01, max(0, (until - .now).timeInterval)))
        }
    }

    /// Closes the connection at once, without the trailer (after a failure).
    func abandon() {
        headerWritten = false
        release()
    }

    private func release() {
        if packet != nil { av_packet_free(&packet) }
        if let context {
            if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0, context.pointee.pb != nil {
                avio_closep(&context.pointee.pb)
            }
            avformat_free_context(context)
            self.context = nil
        }
    }

    /// The error for libavformat's `code`: a network failure (with what to check) or a file one.
    private func failure(_ operation: String, _ code: Int32) -> ELImageError {
        let address = target.description
        if case .hls = target.kind {
            if let refused = fileAccess.lastFailure { return refused }
            for number in [ENOSPC, EIO, EACCES, ENOENT, EROFS, EDQUOT] where code == elimage_averror(number) {
                return .io(file: address, operation: operation == "send to" ? "write a segment of" : operation,
                           errno: number, hint: WriteFailureHint.text(for: number))
            }
            return .malformedMedia(file: address, frame: nil, reason: "libavformat cannot \(operation) it: \(FFmpegError.text(code))")
        }
        let reason = interrupt.isAborted ? "the stream was stopped" : FFmpegError.text(code)
        let hint: String
        switch code {
        case elimage_averror(ECONNREFUSED):
            hint = "nothing listens there: check that the server runs and the address and port are right"
        case _ where code == elimage_averror(ETIMEDOUT) || interrupt.shouldStop:
            hint = "the server did not answer in time: check the address, the network and the firewall"
        case elimage_averror(EPIPE), elimage_averror(ECONNRESET):
            hint = "the server closed the connection: check its log (a wrong application or stream key, a publish refused)"
        default:
            hint = "check the address (\(target.kind == .rtmp ? "rtmp://host[:port]/application/key" : "srt://host:port"))"
                + " and that the server accepts the stream"
        }
        return .network(address: address, operation: operation, reason: reason,
                        hint: hint + " (\(DocumentationPage.liveStreaming.pointer))")
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// `avformat_network_init`, once per process (TLS for rtmps).
    private static let initializeNetwork: Void = {
        FFmpegLog.installed()
        _ = avformat_network_init()
    }()
}
