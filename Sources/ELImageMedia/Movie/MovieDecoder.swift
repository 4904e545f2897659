import CFFmpeg
import ELImage
import Foundation

/// Decodes the video stream of a movie file (MP4, MOV, Matroska/WebM, raw H.264, ... whatever
/// libavformat reads) frame by frame into `PixelBuffer`s, in software with libavcodec.
///
///     let decoder = try MovieDecoder(path: "clip.mp4")
///     while let frame = try decoder.nextFrame() { ... frame.buffer ... }
///
/// Each buffer carries the frame's timestamp (`best_effort_timestamp` in the stream's own time
/// base), its colour tags (untagged: `ColorSpace.defaultForVideo(height:)`, limited range; `yuvj*`
/// formats full range) and chroma siting. 8-bit 4:2:0, 4:2:2, 4:4:4, NV12 and gray pictures are
/// copied as they are; other layouts (10-bit and more) are converted to 8 bits (see
/// `FrameConverter`).
///
/// Damage: a packet the decoder rejects, a packet the demuxer could only read in part, or a
/// picture the decoder had to conceal is reported to `damageHandler` with the frame number and
/// time, and decoding goes on (FFmpeg's decoders conceal damage and recover at the next keyframe,
/// often sooner). `nextFrame()` throws only when it cannot go on: the demuxer fails (unreadable
/// container data), the file ends well before the duration its index states (an MP4 cut short),
/// or `maximumConsecutiveFailures` packets in a row cannot be decoded. The frames decoded before
/// that fault are returned first.
///
/// Pictures come as stored: the container's display matrix (a phone's portrait video) is in
/// `info.orientation`, for the caller to apply (`MovieInput` does).
///
/// Raw streams without timestamps (a `.h264` file) are timed by frame number at their frame rate,
/// and seeking in them decodes from the start.
///
/// A decoder is used from one thread at a time.
public final class MovieDecoder {
    /// A decoded picture.
    public struct Frame: Sendable {
        /// The pixels, with timestamp, colour space and chroma siting.
        public var buffer: PixelBuffer
        /// The frame's number: 0 for the first frame of the file. Counted while decoding from the
        /// start; after a seek, computed from the timestamp and the frame rate.
        public var number: Int
        /// How long the frame is shown, from the stream (or the frame rate), when known.
        public var duration: MediaTime?
        /// The decoder reported errors in this picture and concealed them.
        public var isDamaged: Bool
    }

    /// What the file says about its video stream.
    public let info: MovieInfo
    /// The file.
    public var path: String { info.path }
    /// Replaces the colour space of every frame (e.g. for a file tagged wrongly); `nil` uses the
    /// frames' own tags.
    public var colorSpaceOverride: ColorSpace?
    /// The HDR metadata frames carry: the stream's, then the latest a frame's SEI stated.
    private var hdr: HDRMetadata?
    /// Hears about damage the decoder recovers from (see the type's description).
    public var damageHandler: ((ELImageError) -> Void)?
    /// How many packets in a row may fail to decode before `nextFrame()` gives up.
    public var maximumConsecutiveFailures = 50

    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let converter = FrameConverter()
    private let streamIndex: Int32
    private let timeBase: StreamTimeBase

    private enum DecoderState {
        /// Reading packets and decoding them.
        case reading
        /// The input ended (or failed with `failure`): taking the last frames out of the decoder.
        case draining(failure: ELImageError?)
        case finished
    }
    private var state = DecoderState.reading
    private var failure: ELImageError?
    /// The number of the next frame to come out, and whether it must be recomputed from the next
    /// timestamp (after a seek).
    private var nextNumber = 0
    private var numberNeedsTimestamp = false
    /// After a seek: frames before this time or number are decoded and dropped.
    private var skipBefore: (time: MediaTime?, number: Int?) = (nil, nil)
    private var consecutiveFailures = 0
    private var hasReadPackets = false
    /// Whether the stream has timestamps (raw streams do not: frames are timed by their number).
    private let hasTimestamps: Bool
    private var lastTime: MediaTime?
    /// When the last frame out ends (its time plus its duration).
    private var lastEnd: MediaTime?
    /// Where the video ends by the stream's own stated duration (not the container's).
    private let statedStreamEnd: MediaTime?
    /// The byte after the last packet the container's index listed when the file was opened.
    private let indexedDataEnd: Int64?
    /// The byte after the last video packet read.
    private var lastPacketEnd: Int64?

    /// Opens `path` and prepares the decoder of its best video stream.
    ///
    /// - Parameters:
    ///   - path: the movie file.
    ///   - threadCount: decoder threads; 0 lets libavcodec choose. With more than one, a rejected
    ///     packet may be reported a few frames late.
    /// - Throws: `ELImageError.io` when the file cannot be opened (missing, no permission);
    ///   `ELImageError.malformedMedia` (frame nil) when it is not a movie libavformat can read, is
    ///   a still image (use `StillImageInput`), has no video stream, or its codec has no decoder in
    ///   this FFmpeg.
    public init(path: String, threadCount: Int = 0) throws {
        let format = try MovieFileOpening.open(path)
        var formatContext: UnsafeMutablePointer<AVFormatContext>? = format
        var codecContext: UnsafeMutablePointer<AVCodecContext>?
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        var succeeded = false
        defer {
            if !succeeded {
                av_packet_free(&packet)
                av_frame_free(&frame)
                avcodec_free_context(&codecContext)
                avformat_close_input(&formatContext)
            }
        }
        func malformed(_ reason: String) -> ELImageError { .malformedMedia(file: path, frame: nil, reason: reason) }

        let containerName = format.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        if containerName == "image2" || containerName.hasSuffix("_pipe") {
            throw malformed("it is a still image (\(containerName)), not a movie; give it a .png or .jpg name to read it as an image")
        }
        let infoStatus = avformat_find_stream_info(format, nil)
        guard infoStatus >= 0 else {
            if FFmpegError.isOutOfMemory(infoStatus) {
                throw malformed("libavformat cannot find its streams: \(InputLimits.current.allocationRefusal)")
            }
            throw malformed("libavformat cannot find its streams (\(FFmpegError.text(infoStatus))); the file is damaged or not a movie")
        }
        let index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = format.pointee.streams?[Int(index)], let parameters = stream.pointee.codecpar else {
            throw malformed("it has no video stream (\(Self.streamSummary(format))); give a file with video")
        }
        let codecID = parameters.pointee.codec_id
        let codecName = String(cString: avcodec_get_name(codecID))
        guard let codec = avcodec_find_decoder(codecID) else {
            let codec = codecID == AV_CODEC_ID_NONE ? "its video codec is unknown to" : "its video codec '\(codecName)' is not supported:"
            throw malformed("\(codec) this FFmpeg (libavcodec \(Self.libavcodecVersion)), which has no decoder for it; convert the file, e.g. with ffmpeg -c:v libx264")
        }
        let limits = InputLimits.current
        try limits.checkPicture(width: Int(parameters.pointee.width), height: Int(parameters.pointee.height),
                                file: path, kind: "\(codecName) stream header")
        guard let context = avcodec_alloc_context3(codec) else { throw malformed("out of memory for a decoder") }
        codecContext = context
        var status = avcodec_parameters_to_context(context, parameters)
        guard status >= 0 else { throw malformed("the \(codecName) stream parameters are unusable: \(FFmpegError.text(status))") }
        context.pointee.pkt_timebase = stream.pointee.time_base
        context.pointee.thread_count = Int32(clamping: max(0, threadCount))
        // Pictures that grow mid-stream are refused by libavcodec within the same budget.
        context.pointee.max_pixels = Int64(limits.maximumPixels)
        status = avcodec_open2(context, codec, nil)
        guard status >= 0 else { throw malformed("the \(codecName) decoder does not open: \(FFmpegError.text(status))") }
        guard packet != nil, frame != nil else { throw malformed("out of memory for decoding") }

        let timeBase = StreamTimeBase(stream.pointee.time_base)
        let startTicks = stream.pointee.start_time
        let start = timeBase.time(ofTicks: startTicks == StreamTimeBase.noTimestamp ? 0 : startTicks)
        let durationTicks = stream.pointee.duration
        let streamDuration = durationTicks > 0 && durationTicks != StreamTimeBase.noTimestamp
            ? timeBase.time(ofTicks: durationTicks) : nil
        let duration = streamDuration ?? (format.pointee.duration > 0 ? MediaTime(microseconds: format.pointee.duration) : nil)
        // Times this large come only from damaged headers (at 90 kHz, Int64 ticks last 3 million
        // years), and would overflow the sums of timestamps and durations made while decoding.
        if let duration, MediaTimeMath.checkedSum(start, duration) == nil {
            throw malformed("its video stream starts at \(Self.format(seconds: start.seconds)) and lasts \(Self.format(seconds: duration.seconds)): the end is beyond the largest timestamp ELImage can hold; the container's timing data is damaged")
        }
        let rate = [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate].first { $0.num > 0 && $0.den > 0 }
        let guessed = [av_guess_frame_rate(format, stream, nil)].first { $0.num > 0 && $0.den > 0 }
        let tags = FFmpegColorTags(parameters: parameters)
        let height = Int(parameters.pointee.height)
        let streamHDR = FFmpegHDRMetadata.of(stream: stream)
        self.hdr = streamHDR
        succeeded = true

        self.hasTimestamps = startTicks != StreamTimeBase.noTimestamp
        self.info = MovieInfo(
            path: path, width: Int(parameters.pointee.width), height: height, codecName: codecName,
            containerName: containerName, frameRate: rate.map { Y4MHeader.Ratio(Int($0.num), Int($0.den)) },
            guessedFrameRate: guessed.map { Y4MHeader.Ratio(Int($0.num), Int($0.den)) },
            duration: duration, frameCount: stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil,
            startTime: start, colorSpace: { var space = tags.colorSpace(height: height); space.hdr = streamHDR; return space }(),
            chromaLocation: tags.chromaSiting,
            displayMatrix: Self.displayMatrix(of: stream), sound: Self.sound(of: format),
            bitsPerSample: av_pix_fmt_desc_get(AVPixelFormat(rawValue: parameters.pointee.format))
                .map { max(8, Int($0.pointee.comp.0.depth)) } ?? 8)
        self.statedStreamEnd = streamDuration.flatMap { MediaTimeMath.checkedSum(start, $0) }
        self.indexedDataEnd = Self.indexedDataEnd(of: stream)
        self.formatContext = format
        self.codecContext = context
        self.packet = packet
        self.frame = frame
        self.streamIndex = index
        self.timeBase = timeBase
    }

    /// The first audio track's facts (the track `MovieAudioReader` picks), nil without one.
    private static func sound(of format: UnsafeMutablePointer<AVFormatContext>) -> MovieInfo.Sound? {
        let index = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let parameters = format.pointee.streams?[Int(index)]?.pointee.codecpar else { return nil }
        return MovieInfo.Sound(parameters: parameters)
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&codecContext)
        avformat_close_input(&formatContext)
    }

    // MARK: Decoding

    /// The next frame in presentation order, or nil at the end of the stream.
    /// - Throws: `ELImageError.malformedMedia` naming the file and the frame number when the
    ///   file cannot be read on (it is cut short, or its container data is damaged) or too many
    ///   packets in a row fail to decode. The frames decoded before the fault were returned
    ///   first. Once it has thrown, it throws the same error again.
    public func nextFrame() throws -> Frame? {
        if let failure { throw failure }
        do {
            return try decodeNextFrame()
        } catch let error as ELImageError {
            failure = error
            state = .finished
            throw error
        }
    }

    private func decodeNextFrame() throws -> Frame? {
        guard let codecContext, let frame else { return nil }
        while true {
            if case .finished = state { return nil }
            let received = avcodec_receive_frame(codecContext, frame)
            if received >= 0 {
                defer { av_frame_unref(frame) }
                consecutiveFailures = 0
                if let output = try output(of: frame) { return output }
                continue
            }
            let isDraining = if case .draining = state { true } else { false }
            if received == FFmpegError.endOfFile || (received == FFmpegError.again && isDraining) {
                // Every frame is out (a decoder asking for data after the end of input has none left).
                if case .draining(let failure) = state, let failure = failure ?? cutShortFailure() {
                    throw failure
                }
                state = .finished
                return nil
            }
            if received != FFmpegError.again {
                try decodingFailed(received, packetTime: nil, bytePosition: nil)
                continue
            }
            try feedDecoder()
        }
    }

    /// Reads the next packet of the video stream and sends it to the decoder; at the end of the
    /// input (or when the demuxer fails), starts draining.
    private func feedDecoder() throws {
        guard let formatContext, let codecContext, let packet else { return }
        let status = av_read_frame(formatContext, packet)
        if status == FFmpegError.again {
            usleep(1000)
            return
        }
        if status < 0 {
            state = .draining(failure: status == FFmpegError.endOfFile ? nil : demuxerFailure(status))
            avcodec_send_packet(codecContext, nil)
            return
        }
        defer { av_packet_unref(packet) }
        hasReadPackets = true
        guard packet.pointee.stream_index == streamIndex else { return }
        // An empty packet (an AVI chunk of 0 bytes) is a dropped frame: the picture before it goes
        // on showing. FFmpeg skips it; sent to the decoder it would mean "end of input".
        guard packet.pointee.size > 0 else { return }
        if packet.pointee.pos >= 0 { lastPacketEnd = packet.pointee.pos + Int64(packet.pointee.size) }
        let packetTime = packet.pointee.pts != StreamTimeBase.noTimestamp ? packet.pointee.pts : packet.pointee.dts
        let position = packet.pointee.pos
        if packet.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
            report(reason: "the data of the picture\(describe(ticks: packetTime)) is incomplete\(describe(position: position)); it may show damage")
        }
        let sent = avcodec_send_packet(codecContext, packet)
        if sent < 0, sent != FFmpegError.again, sent != FFmpegError.endOfFile {
            try decodingFailed(sent, packetTime: packetTime, bytePosition: position)
        }
    }

    /// Reports a packet the decoder rejected, or throws when too many failed in a row.
    private func decodingFailed(_ status: Int32, packetTime: Int64?, bytePosition: Int64?) throws {
        consecutiveFailures += 1
        let name = info.codecName
        if consecutiveFailures >= maximumConsecutiveFailures {
            throw ELImageError.malformedMedia(
                file: path, frame: nextNumber,
                reason: "\(consecutiveFailures) packets in a row could not be decoded by the \(name) decoder\(describe(ticks: packetTime)) (last: \(FFmpegError.text(status))); the video data is unreadable from here on")
        }
        report(reason: "the \(name) decoder rejected the data of the picture\(describe(ticks: packetTime))\(describe(position: bytePosition)): \(FFmpegError.text(status)); decoding goes on, the next pictures may show damage until a keyframe")
    }

    /// The error for a demuxer that cannot go on.
    private func demuxerFailure(_ status: Int32) -> ELImageError {
        let after = lastTime.map { " (after \(Self.format(seconds: $0.seconds)))" } ?? ""
        if FFmpegError.isOutOfMemory(status) {
            return .malformedMedia(file: path, frame: nextNumber,
                                   reason: "libavformat cannot read on from this frame\(after): \(InputLimits.current.allocationRefusal)")
        }
        if let io = formatContext?.pointee.pb, avio_feof(io) != 0 {
            let size = avio_size(io)
            return .malformedMedia(
                file: path, frame: nextNumber,
                reason: "the file ends\(size > 0 ? " at byte \(size)" : "") in the middle of its video data, so this frame\(after) and the ones after it are missing (\(FFmpegError.text(status))); the file is cut short, e.g. by an interrupted copy or recording")
        }
        return .malformedMedia(
            file: path, frame: nextNumber,
            reason: "libavformat cannot read on from this frame\(after): \(FFmpegError.text(status)); the container data is damaged")
    }

    /// At the end of the input: the error for a file that ends well before the video duration its
    /// index states (an MP4 cut short after its `moov` box), or nil.
    private func cutShortFailure() -> ELImageError? {
        guard let statedEnd = statedStreamEnd, let lastEnd else { return nil }
        let missing = MediaTimeMath.difference(statedEnd, lastEnd).seconds
        let slack = 1.5 * (frameDuration?.seconds ?? 0.04)
        guard missing > slack, !endsWithDroppedFrames else { return nil }
        let size = formatContext?.pointee.pb.map { avio_size($0) } ?? -1
        return .malformedMedia(
            file: path, frame: nextNumber,
            reason: "the file ends\(size > 0 ? " at byte \(size)" : "") after \(Self.format(seconds: lastEnd.seconds)) of video, but its index says the video lasts until \(Self.format(seconds: statedEnd.seconds)): this frame and the ones after it are missing; the file is cut short, e.g. by an interrupted copy or download")
    }

    /// Whether the video ends with dropped frames rather than a cut: every packet of the index the
    /// file had when opened was read, its last one ending inside the file. AVI writes a 0-byte
    /// chunk for each dropped frame, counted in the stated duration but not indexed. A file cut
    /// short has no such index (AVI's is at its end), or one pointing past the file's end (MP4).
    private var endsWithDroppedFrames: Bool {
        guard let indexedDataEnd, let lastPacketEnd, let io = formatContext?.pointee.pb else { return false }
        let fileSize = avio_size(io)
        // The last packet read is the last one indexed (an index may point at the chunk header,
        // a packet's position after it: AVI's 8 bytes).
        return fileSize > 0 && indexedDataEnd <= fileSize && (0...64).contains(lastPacketEnd - indexedDataEnd)
    }

    /// Where the data of the last non-empty entry of `stream`'s index ends, in bytes from the start of the file.
    private static func indexedDataEnd(of stream: UnsafeMutablePointer<AVStream>) -> Int64? {
        let count = avformat_index_get_entries_count(stream)
        for position in stride(from: count - 1, through: 0, by: -1) {
            guard let entry = avformat_index_get_entry(stream, position) else { return nil }
            if entry.pointee.size > 0, entry.pointee.pos >= 0 { return entry.pointee.pos + Int64(entry.pointee.size) }
        }
        return nil
    }

    /// The `Frame` for a decoded picture, or nil when a seek skips it.
    private func output(of frame: UnsafeMutablePointer<AVFrame>) throws -> Frame? {
        var ticks = frame.pointee.best_effort_timestamp
        if ticks == StreamTimeBase.noTimestamp { ticks = frame.pointee.pts }
        let number: Int
        if numberNeedsTimestamp, ticks != StreamTimeBase.noTimestamp, let computed = frameNumber(ofTicks: ticks) {
            number = computed
        } else {
            number = nextNumber
        }
        numberNeedsTimestamp = false
        nextNumber = number + 1
        func damagedTiming(_ what: String) -> ELImageError {
            .malformedMedia(file: path, frame: number,
                            reason: "\(what) is beyond the largest timestamp ELImage can hold; the stream's timing data is damaged")
        }
        let timestamp: MediaTime
        if ticks != StreamTimeBase.noTimestamp {
            timestamp = timeBase.time(ofTicks: ticks)
        } else if let rate = info.frameRate {
            // Raw streams without timestamps: number / frame rate from the start.
            let offset = MediaTime(frame: Int64(number), framesPerSecond: Int32(clamping: rate.numerator),
                                   Int32(clamping: rate.denominator))
            guard let time = MediaTimeMath.checkedSum(info.startTime, offset) else {
                throw damagedTiming("the picture's time, \(Self.format(seconds: offset.seconds)) after the stream's start at \(Self.format(seconds: info.startTime.seconds)),")
            }
            timestamp = time
        } else {
            timestamp = MediaTime(frame: Int64(number), framesPerSecond: 25)
        }
        let durationTicks = frame.pointee.pkt_duration
        let duration: MediaTime? = durationTicks > 0 ? timeBase.time(ofTicks: durationTicks) : frameDuration
        let shownFor = duration ?? MediaTime(value: 0, timescale: timestamp.timescale)
        guard let end = MediaTimeMath.checkedSum(timestamp, shownFor) else {
            throw damagedTiming("the end of the picture at \(Self.format(seconds: timestamp.seconds)), shown for \(Self.format(seconds: shownFor.seconds)),")
        }
        lastTime = timestamp
        lastEnd = end
        if let time = skipBefore.time, timestamp < time { return nil }
        if let first = skipBefore.number, number < first { return nil }
        skipBefore = (nil, nil)

        let isDamaged = frame.pointee.decode_error_flags != 0 || frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0
        if isDamaged {
            report(frame: number, reason: "the picture at \(Self.format(seconds: timestamp.seconds)) was decoded with errors (\(Self.describeDamage(frame.pointee))) and concealed; it may show damage")
        }
        let tags = FFmpegColorTags(frame: frame)
        let height = Int(frame.pointee.height)
        // A codec states HDR metadata in SEI messages, often only at keyframes: it holds until restated.
        if let stated = FFmpegHDRMetadata.of(frame: frame) { hdr = stated }
        var colorSpace = tags.colorSpace(height: height)
        colorSpace.hdr = hdr
        let buffer = try converter.pixelBuffer(
            from: frame, timestamp: timestamp, colorSpace: colorSpaceOverride ?? colorSpace,
            chromaLocation: tags.chromaSiting, describe: { (self.path, number) })
        return Frame(buffer: buffer, number: number, duration: duration, isDamaged: isDamaged)
    }

    // MARK: Seeking

    /// Positions the decoder so that the next frame is the first one at or after `time` (in the
    /// stream's timeline, which starts at `info.startTime`).
    ///
    /// It seeks to the keyframe before `time` and decodes (without returning) the frames up to it.
    /// - Throws: `ELImageError.malformedMedia` when the file cannot be sought (some raw streams);
    ///   open the file again to start over.
    public func seek(to time: MediaTime) throws {
        try seekToKeyframe(before: time)
        skipBefore = (time, nil)
    }

    /// Positions the decoder so that the next frame is frame `number` (0 = the first frame).
    /// Without a frame rate it goes back to the start and decodes up to the frame.
    public func seek(toFrame number: Int) throws {
        let target = max(0, number)
        if let rate = info.frameRate, rate.numerator > 0, rate.denominator > 0 {
            // Aim half a frame early, so that a frame whose timestamp jitters is not skipped.
            let doubled = MediaTime(frame: Int64(2 * target - 1), framesPerSecond: Int32(clamping: 2 * rate.numerator),
                                    Int32(clamping: rate.denominator))
            try seekToKeyframe(before: max(info.startTime, MediaTimeMath.sum(info.startTime, doubled)))
        } else {
            try seekToKeyframe(before: info.startTime)
            numberNeedsTimestamp = false
            nextNumber = 0
        }
        skipBefore = (nil, target)
    }

    private func seekToKeyframe(before time: MediaTime) throws {
        guard let formatContext, let codecContext else { return }
        failure = nil
        // A stream without timestamps (raw H.264) cannot tell where a seek landed: go back to its
        // first byte and count frames from there.
        let status = hasTimestamps
            ? av_seek_frame(formatContext, streamIndex, timeBase.ticks(of: time), AVSEEK_FLAG_BACKWARD)
            : av_seek_frame(formatContext, -1, 0, AVSEEK_FLAG_BYTE)
        guard status >= 0 else {
            // Still at the start (a raw stream that cannot seek): decoding up to the target does.
            if !hasReadPackets { return }
            let error = ELImageError.malformedMedia(
                file: path, frame: nil,
                reason: "cannot seek to \(Self.format(seconds: time.seconds)) (\(FFmpegError.text(status))); this \(info.containerName) file does not support seeking, open it again to start over")
            failure = error
            throw error
        }
        avcodec_flush_buffers(codecContext)
        state = .reading
        consecutiveFailures = 0
        numberNeedsTimestamp = hasTimestamps
        if !hasTimestamps { nextNumber = 0 }
        lastTime = nil
        lastEnd = nil
        lastPacketEnd = nil
    }

    // MARK: Helpers

    /// One frame's duration at the stated frame rate.
    private var frameDuration: MediaTime? {
        guard let rate = info.frameRate, rate.numerator > 0 else { return nil }
        return MediaTime(value: Int64(rate.denominator), timescale: Int32(clamping: rate.numerator))
    }

    /// The number of the frame at `ticks`, at the stated frame rate from the start of the stream.
    private func frameNumber(ofTicks ticks: Int64) -> Int? {
        guard let rate = info.frameRate, rate.numerator > 0, rate.denominator > 0 else { return nil }
        let start = timeBase.ticks(of: info.startTime)
        let perFrame = AVRational(num: Int32(clamping: rate.denominator), den: Int32(clamping: rate.numerator))
        let (sinceStart, overflow) = ticks.subtractingReportingOverflow(start)
        guard !overflow else { return nil }
        return max(0, Int(av_rescale_q(sinceStart, timeBase.rational, perFrame)))
    }

    private func report(frame number: Int? = nil, reason: String) {
        damageHandler?(.malformedMedia(file: path, frame: number ?? nextNumber, reason: reason))
    }

    private func describe(ticks: Int64?) -> String {
        guard let ticks, ticks != StreamTimeBase.noTimestamp else { return "" }
        return " at \(Self.format(seconds: timeBase.seconds(ofTicks: ticks)))"
    }

    private func describe(position: Int64?) -> String {
        guard let position, position >= 0 else { return "" }
        return " (byte \(position) of the file)"
    }

    /// "2.040 s".
    static func format(seconds: Double) -> String { String(format: "%.3f s", seconds) }

    private static func describeDamage(_ frame: AVFrame) -> String {
        var kinds: [String] = []
        let flags = frame.decode_error_flags
        if flags & FF_DECODE_ERROR_INVALID_BITSTREAM != 0 { kinds.append("invalid bitstream") }
        if flags & FF_DECODE_ERROR_MISSING_REFERENCE != 0 { kinds.append("missing reference") }
        if flags & FF_DECODE_ERROR_CONCEALMENT_ACTIVE != 0 { kinds.append("concealment") }
        if flags & FF_DECODE_ERROR_DECODE_SLICES != 0 { kinds.append("slices not decoded") }
        if frame.flags & AV_FRAME_FLAG_CORRUPT != 0 { kinds.append("flagged corrupt") }
        return kinds.isEmpty ? "unspecified" : kinds.joined(separator: ", ")
    }

    /// The stream's display matrix side data (MP4/MOV `tkhd` matrix), when it has one.
    private static func displayMatrix(of stream: UnsafeMutablePointer<AVStream>) -> DisplayMatrix? {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size),
              size >= 9 * MemoryLayout<Int32>.size else { return nil }
        let raw = UnsafeRawPointer(data)
        return DisplayMatrix((0..<9).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self) })
    }

    private static func streamSummary(_ format: UnsafeMutablePointer<AVFormatContext>) -> String {
        let count = Int(format.pointee.nb_streams)
        guard count > 0, let streams = format.pointee.streams else { return "it has no streams at all" }
        let kinds = (0..<count).compactMap { index -> String? in
            guard let parameters = streams[index]?.pointee.codecpar else { return nil }
            let type = av_get_media_type_string(parameters.pointee.codec_type).map { String(cString: $0) } ?? "unknown"
            return "\(type) \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))"
        }
        return "streams: " + kinds.joined(separator: ", ")
    }

    private static var libavcodecVersion: String {
        let version = avcodec_version()
        return "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)"
    }
}
