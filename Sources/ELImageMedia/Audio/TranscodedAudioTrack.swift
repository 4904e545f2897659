import CFFmpeg
import ELImage

/// A movie's audio track that the output cannot hold as it is (Vorbis or PCM in MP4, AAC in
/// WebM, ...): read by a `MovieAudioReader`, decoded with libavcodec and encoded to AAC or Opus
/// (`AudioEncoder`) as the recording asks for it, on the movie's own timeline.
public final class TranscodedAudioTrack: AudioTrackSource, Sendable {

    public let format: AudioTrackFormat
    private let reader: MovieAudioReader
    private let state: Locked<Transcoder>

    /// The decoder, the encoder and the packets encoded ahead, touched only inside the lock.
    private final class Transcoder {
        var decoder: UnsafeMutablePointer<AVCodecContext>?
        var frame: UnsafeMutablePointer<AVFrame>?
        var packet: UnsafeMutablePointer<AVPacket>?
        let encoder: AudioEncoder
        var start: Int64?
        var encoded: [AudioPacket] = []
        var flushed = false

        init(decoder: UnsafeMutablePointer<AVCodecContext>, encoder: AudioEncoder) {
            self.decoder = decoder
            self.encoder = encoder
            frame = av_frame_alloc()
            packet = av_packet_alloc()
        }

        deinit {
            avcodec_free_context(&decoder)
            av_frame_free(&frame)
            av_packet_free(&packet)
        }
    }

    /// A transcoder for `reader`'s track, to `output` (AAC by default; Opus at 48 kHz) at
    /// `bitrate` bits per second.
    /// - Throws: `ELImageError.malformedMedia` when the track cannot be decoded,
    ///   `AudioCaptureError.unsupportedFormat` when the encoder refuses its layout.
    public init(reader: MovieAudioReader, codec output: AudioCodec = .aac, bitrate: Int = 128_000) throws {
        let parameters = reader.format.parameters
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw ELImageError.malformedMedia(file: reader.path, frame: nil,
                                              reason: "this FFmpeg has no decoder for its \(reader.format.codecName) sound")
        }
        var decoder = avcodec_alloc_context3(codec)
        guard let context = decoder, avcodec_parameters_to_context(context, parameters) >= 0,
              avcodec_open2(context, codec, nil) >= 0 else {
            avcodec_free_context(&decoder)
            throw ELImageError.malformedMedia(file: reader.path, frame: nil,
                                              reason: "its \(reader.format.codecName) sound cannot be decoded")
        }
        let channels = Int(context.pointee.ch_layout.nb_channels)
        let encoder: AudioEncoder
        do {
            encoder = try AudioEncoder(codec: output, inputRate: Int(context.pointee.sample_rate), inputChannels: channels,
                                       inputFormat: context.pointee.sample_fmt, sampleRate: Int(context.pointee.sample_rate),
                                       channels: min(channels, 2), bitrate: bitrate)
        } catch {
            avcodec_free_context(&decoder)
            throw error
        }
        self.reader = reader
        format = encoder.format
        state = Locked(Transcoder(decoder: context, encoder: encoder))
    }

    public func packets(before time: MediaTime, final: Bool) throws -> [AudioPacket] {
        let source = try reader.packets(before: time, final: final)
        return try state.withLock { transcoder in
            guard let decoder = transcoder.decoder, let frame = transcoder.frame, let packet = transcoder.packet else { return [] }
            let rate = Int64(transcoder.encoder.sampleRate)
            func collect() throws {
                while avcodec_receive_frame(decoder, frame) >= 0 {
                    defer { av_frame_unref(frame) }
                    if transcoder.start == nil {
                        let pts = frame.pointee.pts != StreamTimeBase.noTimestamp ? frame.pointee.pts : 0
                        transcoder.start = av_rescale_q(pts, decoder.pointee.pkt_timebase, AVRational(num: 1, den: Int32(rate)))
                    }
                    transcoder.encoded += try transcoder.encoder.encode(frame)
                }
            }
            for input in source {
                decoder.pointee.pkt_timebase = AVRational(num: 1, den: input.timescale)
                av_packet_unref(packet)
                guard av_new_packet(packet, Int32(input.data.count)) >= 0, let data = packet.pointee.data else { continue }
                input.data.withUnsafeBufferPointer { bytes in
                    if let base = bytes.baseAddress { data.update(from: base, count: input.data.count) }
                }
                packet.pointee.pts = input.pts
                packet.pointee.dts = input.dts
                packet.pointee.duration = input.duration
                _ = avcodec_send_packet(decoder, packet)
                av_packet_unref(packet)
                try collect()
            }
            if final, !transcoder.flushed {
                transcoder.flushed = true
                _ = avcodec_send_packet(decoder, nil)
                try collect()
                transcoder.encoded += try transcoder.encoder.finish()
            }
            let start = transcoder.start ?? 0
            let limit = MediaTimeMath.ticks(time, timescale: Int32(rate))
            let ready = transcoder.encoded.map { packet -> AudioPacket in
                var packet = packet
                packet.pts += start
                packet.dts += start
                return packet
            }
            let count = final ? ready.count : (ready.firstIndex { $0.pts >= limit } ?? ready.count)
            transcoder.encoded.removeFirst(count)
            return Array(ready.prefix(count))
        }
    }

    public func recordingEnded() { reader.recordingEnded() }
}
