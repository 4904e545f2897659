import CFFmpeg
import ELImage
import Foundation

/// The first audio track of a movie file, packet by packet, for stream copy beside the video
/// (`ffmpeg -c:a copy`): the file is opened a second time, so the video decoder and its pacing
/// are untouched, and packets are read as the recording asks for them.
///
/// Times are the file's own (the same timeline as `MovieDecoder`'s frame timestamps), with the
/// codec's priming as the file states it (a first AAC packet before zero when an edit list skips
/// its first samples): the MP4 muxer writes the matching edit list. Files with several audio
/// tracks give their first (FFmpeg's "best") one.
public final class MovieAudioReader: AudioTrackSource, Sendable {

    public let format: AudioTrackFormat
    /// The file.
    public let path: String
    private let state: Locked<Reader?>

    /// The libavformat side: the open file and the packet read ahead.
    /// Touched only inside the reader's lock, where it is put once made.
    private final class Reader {
        var context: UnsafeMutablePointer<AVFormatContext>?
        var packet: UnsafeMutablePointer<AVPacket>?
        let streamIndex: Int32
        let timeBase: AVRational
        let timescale: Int32
        var ahead: AudioPacket?
        var ended = false

        init(context: UnsafeMutablePointer<AVFormatContext>, packet: UnsafeMutablePointer<AVPacket>, streamIndex: Int32,
             timeBase: AVRational, sampleRate: Int32) {
            self.context = context
            self.packet = packet
            self.streamIndex = streamIndex
            self.timeBase = timeBase
            // Ticks of 1/sample rate when the stream's time base is coarser or odd (Matroska's 1/1000).
            timescale = timeBase.num == 1 && timeBase.den >= sampleRate ? timeBase.den : max(1, sampleRate)
        }

        deinit {
            av_packet_free(&packet)
            avformat_close_input(&context)
        }
    }

    /// Opens the first audio track of `path`; nil when the file has none.
    /// - Throws: `ELImageError.io` when the file cannot be opened, `.malformedMedia` when
    ///   libavformat cannot read its streams.
    public static func open(path: String) throws -> MovieAudioReader? {
        let context = try MovieFileOpening.open(path)
        var opened: UnsafeMutablePointer<AVFormatContext>? = context
        var keep = false
        defer { if !keep { avformat_close_input(&opened) } }
        let info = avformat_find_stream_info(context, nil)
        guard info >= 0 else {
            throw ELImageError.malformedMedia(file: path, frame: nil,
                                              reason: "libavformat cannot find its streams (\(FFmpegError.text(info)))")
        }
        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let stream = context.pointee.streams?[Int(index)], let parameters = stream.pointee.codecpar else {
            return nil
        }
        // Only the audio track is demuxed.
        for other in 0..<Int(context.pointee.nb_streams) where other != Int(index) {
            context.pointee.streams?[other]?.pointee.discard = AVDISCARD_ALL
        }
        let format = try AudioTrackFormat(copying: parameters, what: path)
        guard let packet = av_packet_alloc() else {
            throw ELImageError.invalidState(node: "MovieAudioReader", reason: "out of memory reading \(path)")
        }
        keep = true
        let reader = Reader(context: context, packet: packet, streamIndex: index, timeBase: stream.pointee.time_base,
                            sampleRate: parameters.pointee.sample_rate)
        return MovieAudioReader(path: path, format: format, reader: reader)
    }

    private init(path: String, format: AudioTrackFormat, reader: Reader) {
        self.path = path
        self.format = format
        state = Locked(nil)
        state.withCondition { $0.value = reader }  // made beside the opening code's clean-up: handed over here
    }

    public func packets(before time: MediaTime, final: Bool) throws -> [AudioPacket] {
        try state.withCondition { held in
            guard let reader = held.value else { return [] }
            var out: [AudioPacket] = []
            while true {
                if reader.ahead == nil { reader.ahead = try read(reader) }
                guard let next = reader.ahead, next.time < time else { return out }
                out.append(next)
                reader.ahead = nil
            }
        }
    }

    public func recordingEnded() {
        state.withLock { $0 = nil }
    }

    /// The next packet of the track, or nil at its end.
    private func read(_ reader: Reader) throws -> AudioPacket? {
        guard !reader.ended, let context = reader.context, let packet = reader.packet else { return nil }
        while true {
            let status = av_read_frame(context, packet)
            if status == FFmpegError.again { usleep(1000); continue }
            if status == FFmpegError.endOfFile {
                reader.ended = true
                return nil
            }
            guard status >= 0 else {
                reader.ended = true
                throw ELImageError.malformedMedia(file: path, frame: nil,
                                                  reason: "its audio track cannot be read on: \(FFmpegError.text(status)); the file is damaged or cut short")
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == reader.streamIndex, packet.pointee.size > 0,
                  let data = packet.pointee.data else { continue }
            let outBase = AVRational(num: 1, den: reader.timescale)
            let rawPTS = packet.pointee.pts != StreamTimeBase.noTimestamp ? packet.pointee.pts : packet.pointee.dts
            guard rawPTS != StreamTimeBase.noTimestamp else { continue }
            let rawDTS = packet.pointee.dts != StreamTimeBase.noTimestamp ? packet.pointee.dts : rawPTS
            let pts = av_rescale_q(rawPTS, reader.timeBase, outBase)
            return AudioPacket(data: Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))),
                               pts: pts, dts: av_rescale_q(rawDTS, reader.timeBase, outBase),
                               duration: av_rescale_q(packet.pointee.duration, reader.timeBase, outBase),
                               timescale: reader.timescale)
        }
    }
}

extension MovieAudioReader {
    /// The first audio track of `path` as an MP4 file can hold it: copied packet by packet when
    /// its codec fits (`AudioTrackFormat.fitsInMP4`), else decoded and encoded to AAC
    /// (`TranscodedAudioTrack`); nil when the file has no sound. What a recording of a movie keeps
    /// by default (`RecordingSound.fromSource`), and what `elimage run` writes into an `.mp4`.
    /// - Throws: as `open(path:)` and `TranscodedAudioTrack.init(reader:codec:bitrate:)`.
    public static func openForMP4(path: String) throws -> (any AudioTrackSource)? {
        try open(path: path, fitting: .mp4)
    }

    /// Opens the first audio track of `path` as AAC (for a live stream): copied when it is AAC,
    /// else encoded to AAC; nil when the file has none.
    public static func openAsAAC(path: String) throws -> (any AudioTrackSource)? {
        try open(path: path, fitting: .stream)
    }

    /// The first audio track of `path` as `fit` takes it: copied, or encoded to its codec; nil
    /// when the file has no sound.
    static func open(path: String, fitting fit: SoundFit) throws -> (any AudioTrackSource)? {
        guard let reader = try open(path: path) else { return nil }
        return fit.copies(reader.format) ? reader : try TranscodedAudioTrack(reader: reader, codec: fit.encodesTo)
    }
}
