import CFFmpeg
import ELImage

/// The codec a live sound track is encoded with.
public enum AudioCodec: String, Sendable, CaseIterable {
    /// AAC-LC, libavcodec's native encoder.
    case aac
    /// Opus, through libavcodec's libopus encoder (48 kHz).
    case opus
}

/// Encodes interleaved float samples into AAC or Opus packets with libavcodec. Samples are
/// converted (format, rate, channels) by libswresample first, which also stretches or squeezes
/// them slightly on request to follow another clock (`compensate`). Used by one thread.
final class AudioEncoder {
    let format: AudioTrackFormat
    let sampleRate: Int
    let channels: Int
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var fifo: OpaquePointer?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let frameSize: Int
    /// Samples sent to the encoder so far (the next frame's pts).
    private var samplesIn: Int64 = 0

    /// - Parameters: the input's rate, channels and sample format (interleaved floats unless
    ///   told), and the output's.
    init(codec kind: AudioCodec, inputRate: Int, inputChannels: Int, inputFormat: AVSampleFormat = AV_SAMPLE_FMT_FLT,
         sampleRate: Int, channels: Int, bitrate: Int) throws(AudioCaptureError) {
        let name = kind == .aac ? "aac" : "libopus"
        func unsupported(_ reason: String) -> AudioCaptureError { .unsupportedFormat(what: "the \(kind.rawValue) encoder", reason: reason) }
        guard let encoder = avcodec_find_encoder_by_name(name) else { throw unsupported("this FFmpeg has no \(name) encoder") }
        FFmpegLog.installed()
        guard let context = avcodec_alloc_context3(encoder) else { throw unsupported("out of memory") }
        codec = context
        let outputRate = kind == .opus ? 48_000 : sampleRate
        context.pointee.sample_rate = Int32(outputRate)
        av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        // The encoder's preferred sample format: planar float for AAC, float or s16 for Opus.
        var sampleFormat = AV_SAMPLE_FMT_FLTP
        if let formats = encoder.pointee.sample_fmts {
            sampleFormat = formats[0]
            var index = 0
            while formats[index] != AV_SAMPLE_FMT_NONE {
                if formats[index] == AV_SAMPLE_FMT_FLTP || formats[index] == AV_SAMPLE_FMT_FLT { sampleFormat = formats[index]; break }
                index += 1
            }
        }
        context.pointee.sample_fmt = sampleFormat
        context.pointee.bit_rate = Int64(bitrate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(outputRate))
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        var status = avcodec_open2(context, encoder, nil)
        guard status >= 0 else {
            avcodec_free_context(&codec)
            throw unsupported("\(channels) channels at \(outputRate) Hz, \(bitrate / 1000) kbit/s: \(FFmpegError.text(status))")
        }
        frameSize = context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : 1024
        self.sampleRate = outputRate
        self.channels = channels
        do {
            format = try AudioTrackFormat(encoder: context, what: name)
        } catch {
            avcodec_free_context(&codec)
            throw unsupported("\(error)")
        }
        var inputLayout = AVChannelLayout()
        av_channel_layout_default(&inputLayout, Int32(inputChannels))
        status = swr_alloc_set_opts2(&resampler, &context.pointee.ch_layout, sampleFormat, Int32(outputRate),
                                     &inputLayout, inputFormat, Int32(inputRate), 0, nil)
        av_channel_layout_uninit(&inputLayout)
        guard status >= 0, let resampler, swr_init(resampler) >= 0 else {
            release()
            throw unsupported("libswresample cannot convert \(inputChannels) channels at \(inputRate) Hz to \(channels) at \(outputRate) Hz")
        }
        fifo = av_audio_fifo_alloc(sampleFormat, Int32(channels), Int32(frameSize * 4))
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard fifo != nil, frame != nil, packet != nil else {
            release()
            throw unsupported("out of memory")
        }
    }

    deinit { release() }

    /// Asks the resampler to add (positive) or remove `samples` output samples over the next
    /// `distance` samples (`swr_set_compensation`), to follow another clock.
    func compensate(_ samples: Int, over distance: Int) {
        guard let resampler else { return }
        swr_set_compensation(resampler, Int32(samples), Int32(max(1, distance)))
    }

    /// Converts `count` interleaved input frames and encodes every full codec frame; returns the
    /// packets with times in samples of `sampleRate` from the first sample given.
    func encode(_ samples: UnsafeBufferPointer<Float>, frames count: Int) throws(AudioCaptureError) -> [AudioPacket] {
        var input: UnsafePointer<UInt8>? = samples.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }
        return try withUnsafeMutablePointer(to: &input) { planes throws(AudioCaptureError) in
            try encode(planes: planes, frames: count)
        }
    }

    /// Converts and encodes a decoded frame (in the input format given at creation).
    func encode(_ frame: UnsafeMutablePointer<AVFrame>) throws(AudioCaptureError) -> [AudioPacket] {
        guard let data = frame.pointee.extended_data else { return [] }
        return try data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) { planes throws(AudioCaptureError) in
            try encode(planes: planes, frames: Int(frame.pointee.nb_samples))
        }
    }

    private func encode(planes input: UnsafeMutablePointer<UnsafePointer<UInt8>?>, frames count: Int) throws(AudioCaptureError) -> [AudioPacket] {
        guard let resampler, let fifo, let codec else { return [] }
        let capacity = Int(swr_get_out_samples(resampler, Int32(count))) + 64
        var planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
        guard av_samples_alloc_array_and_samples(&planes, nil, Int32(channels), Int32(capacity), codec.pointee.sample_fmt, 0) >= 0,
              let planes else { throw .unsupportedFormat(what: "the sound converter", reason: "out of memory") }
        defer {
            av_freep(UnsafeMutableRawPointer(planes))
            var pointer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>? = planes
            av_freep(&pointer)
        }
        let converted = swr_convert(resampler, planes, Int32(capacity), input, Int32(count))
        guard converted >= 0 else { throw .unsupportedFormat(what: "the sound converter", reason: FFmpegError.text(converted)) }
        planes.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: channels) { raw in
            _ = av_audio_fifo_write(fifo, raw, converted)
        }
        return try drain(final: false)
    }

    /// Encodes what is left (padded with silence) and the encoder's delayed packets.
    func finish() throws(AudioCaptureError) -> [AudioPacket] { try drain(final: true) }

    private func drain(final: Bool) throws(AudioCaptureError) -> [AudioPacket] {
        guard let fifo, let codec, let frame else { return [] }
        var out: [AudioPacket] = []
        while Int(av_audio_fifo_size(fifo)) >= frameSize || (final && av_audio_fifo_size(fifo) > 0) {
            av_frame_unref(frame)
            frame.pointee.nb_samples = Int32(frameSize)
            frame.pointee.format = codec.pointee.sample_fmt.rawValue
            frame.pointee.sample_rate = codec.pointee.sample_rate
            av_channel_layout_copy(&frame.pointee.ch_layout, &codec.pointee.ch_layout)
            guard av_frame_get_buffer(frame, 0) >= 0 else { throw .unsupportedFormat(what: "the sound encoder", reason: "out of memory") }
            av_samples_set_silence(frame.pointee.extended_data, 0, Int32(frameSize), Int32(channels), codec.pointee.sample_fmt)
            let read = frame.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: channels) {
                av_audio_fifo_read(fifo, $0, Int32(frameSize))
            }
            guard read > 0 else { break }
            frame.pointee.pts = samplesIn
            samplesIn += Int64(frameSize)
            try send(frame, into: &out)
        }
        if final { try send(nil, into: &out) }
        return out
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?, into out: inout [AudioPacket]) throws(AudioCaptureError) {
        guard let codec, let packet else { return }
        let sent = avcodec_send_frame(codec, frame)
        guard sent >= 0 || sent == FFmpegError.endOfFile else {
            throw .unsupportedFormat(what: "the sound encoder", reason: FFmpegError.text(sent))
        }
        while avcodec_receive_packet(codec, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard let data = packet.pointee.data else { continue }
            out.append(AudioPacket(data: Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))),
                                   pts: packet.pointee.pts, dts: packet.pointee.dts,
                                   duration: packet.pointee.duration > 0 ? packet.pointee.duration : Int64(frameSize),
                                   timescale: Int32(sampleRate)))
        }
    }

    private func release() {
        avcodec_free_context(&codec)
        swr_free(&resampler)
        if let fifo { av_audio_fifo_free(fifo) }
        fifo = nil
        av_frame_free(&frame)
        av_packet_free(&packet)
    }
}
