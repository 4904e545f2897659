import CFFmpeg
import ELImage
import Foundation

/// Writes 8-bit 4:2:0 frames through one of FFmpeg's video encoders into a file of its container
/// (`VideoCodec`): WebM or Matroska (VP9, AV1, H.264), animated GIF or WebP. On the sink's worker
/// thread; the file is written under a temporary name and renamed by `publish()`.
///
/// Frames keep their own times (from the first frame's), so a variable rate stays variable; GIF
/// rounds them to its hundredths of a second. A sound track (WebM, Matroska) is put on the same
/// timeline, zero at the first frame, and interleaved up to where the video written so far ends.
final class CodecFileWriter: FrameWriter {
    let path: String
    private let codec: VideoCodec
    private let file: POSIXFileWriter
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var avio: UnsafeMutablePointer<AVIOContext>?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var audioStream: UnsafeMutablePointer<AVStream>?
    /// The sound, mapped onto the file's timeline (`timeline`: zero at the first frame).
    private let audio: RecordingAudio?
    private let timeline = Locked(AudioTimeline())
    /// A frame's length and where the video written so far ends, in the timeline's ticks.
    private let frameTicks: Int64
    private var videoEnd: Int64?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// GIF: the conversion of each frame to its 256 colours.
    private var palette: OpaquePointer?
    private var firstTime: MediaTime?
    private var lastTicks: Int64 = -1
    private var finished = false
    /// The encoder's ticks a second (its time base is 1/this).
    private let ticksPerSecond: Int64
    private(set) var framesWritten = 0

    /// Opens the encoder and the muxer for `width`×`height` frames at about `frameRate` (the
    /// encoder's rate control uses it; the frames keep their own times).
    /// `FileOutput.encoded` has checked that `container` holds `codec`, the quality's range and
    /// the codec of `audio` (the sound to keep, or nil).
    /// - Throws: `ELImageError.invalidInput` when this FFmpeg has no encoder for `codec`;
    ///   `ELImageError.io` when the file cannot be made.
    init(path: String, container: VideoCodec.Container, codec: VideoCodec, quality: Double, width: Int, height: Int,
         frameRate: Y4MHeader.Ratio, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
         audio sound: (any AudioTrackSource)? = nil) throws {
        guard let found = codec.encoder else {
            throw ELImageError.invalidInput(what: "this FFmpeg has no \(codec) encoder (\(codec.encoderNames.joined(separator: " or ")))",
                                            hint: "install an FFmpeg built with it (Debian's libavcodec59 has them all), or choose another codec")
        }
        self.path = path
        self.codec = codec
        ticksPerSecond = codec == .gif ? 100 : 1000
        let line = timeline
        audio = sound.map { RecordingAudio(source: $0, timeline: { line.withLock { $0 } }) }
        let timescale = Int64(timeline.withLock { $0.timescale })
        frameTicks = frameRate.numerator > 0 ? timescale * Int64(frameRate.denominator) / Int64(frameRate.numerator) : timescale / 25
        do {
            file = try POSIXFileWriter(path: path)
        } catch {
            sound?.recordingEnded()
            throw error
        }
        FFmpegLog.installed()
        do {
            try openMuxer(container)
            try openEncoder(found, quality: quality, width: width, height: height, frameRate: frameRate,
                            colorSpace: colorSpace, chromaLocation: chromaLocation)
            if let sound { try addSoundStream(sound.format) }
            try writeHeader()
        } catch {
            release()
            file.remove()
            sound?.recordingEnded()
            throw error
        }
    }

    deinit { release() }

    private func openMuxer(_ container: VideoCodec.Container) throws {
        var context: UnsafeMutablePointer<AVFormatContext>?
        let code = avformat_alloc_output_context2(&context, nil, container.muxerName, nil)
        guard code >= 0, let context else { throw failure("set up the \(container.muxerName) muxer for", code) }
        format = context
        guard let buffer = av_malloc(AVIOOutput.bufferSize) else { throw failure("allocate for", elimage_averror(ENOMEM)) }
        let opaque = Unmanaged.passUnretained(file).toOpaque()
        guard let avio = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(AVIOOutput.bufferSize), 1, opaque, nil,
                                            { opaque, bytes, count in CodecFileWriter.write(opaque, bytes, count) },
                                            { opaque, offset, whence in CodecFileWriter.seek(opaque, offset, whence) }) else {
            av_free(buffer)
            throw failure("allocate for", elimage_averror(ENOMEM))
        }
        self.avio = avio
        context.pointee.pb = avio
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    }

    private func openEncoder(_ found: UnsafePointer<AVCodec>, quality: Double, width: Int, height: Int, frameRate: Y4MHeader.Ratio,
                             colorSpace: ColorSpace, chromaLocation: ChromaLocation) throws {
        guard let format, let encoder = avcodec_alloc_context3(found) else { throw failure("allocate for", elimage_averror(ENOMEM)) }
        self.encoder = encoder
        encoder.pointee.width = Int32(width)
        encoder.pointee.height = Int32(height)
        encoder.pointee.time_base = AVRational(num: 1, den: Int32(ticksPerSecond))
        encoder.pointee.framerate = AVRational(num: Int32(clamping: frameRate.numerator), den: Int32(clamping: max(1, frameRate.denominator)))
        encoder.pointee.pix_fmt = codec == .gif ? AV_PIX_FMT_BGR8 : AV_PIX_FMT_YUV420P
        // As many threads as the encoder finds useful on this machine (FFmpeg's own default is one).
        encoder.pointee.thread_count = 0
        if codec != .gif {
            let tags = ColorTags(colorSpace, chromaLocation: chromaLocation)
            encoder.pointee.colorspace = AVColorSpace(rawValue: UInt32(tags.matrix))
            encoder.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(tags.primaries))
            encoder.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(tags.transfer))
            encoder.pointee.color_range = tags.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
            encoder.pointee.chroma_sample_location = AVChromaLocation(rawValue: UInt32(tags.chromaSampleLocation + 1))
        }
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            encoder.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in codec.encoderOptions(encoder: String(cString: found.pointee.name), quality: quality) {
            av_dict_set(&options, key, value, 0)
        }
        var code = avcodec_open2(encoder, found, &options)
        guard code >= 0 else { throw failure("open the \(codec) encoder for", code) }
        guard let stream = avformat_new_stream(format, nil) else { throw failure("add a video stream to", elimage_averror(ENOMEM)) }
        self.stream = stream
        code = avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
        guard code >= 0 else { throw failure("describe the video stream of", code) }
        stream.pointee.time_base = encoder.pointee.time_base
        guard let frame = av_frame_alloc(), let packet = av_packet_alloc() else { throw failure("allocate for", elimage_averror(ENOMEM)) }
        self.frame = frame
        self.packet = packet
        frame.pointee.format = encoder.pointee.pix_fmt.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        code = av_frame_get_buffer(frame, 0)
        guard code >= 0 else { throw failure("allocate a frame for", code) }
        if codec == .gif {
            // Ordered (Bayer) dither to 3-3-2 colours, what FFmpeg's own GIF output does by default.
            palette = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_YUV420P, Int32(width), Int32(height), AV_PIX_FMT_BGR8,
                                     SWS_BICUBIC, nil, nil, nil)
            guard palette != nil else { throw failure("set up the colour conversion for", elimage_averror(ENOMEM)) }
        }
    }

    /// Adds the sound's stream, its packets copied as they are.
    private func addSoundStream(_ sound: AudioTrackFormat) throws {
        guard let format, let stream = avformat_new_stream(format, nil) else { throw failure("add a sound stream to", elimage_averror(ENOMEM)) }
        audioStream = stream
        let code = avcodec_parameters_copy(stream.pointee.codecpar, sound.parameters)
        guard code >= 0 else { throw failure("describe the sound stream of", code) }
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = AVRational(num: 1, den: Int32(max(1, sound.sampleRate)))
    }

    private func writeHeader() throws {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if codec == .gif || codec == .webp { av_dict_set(&options, "loop", "0", 0) }  // loops for ever, as browsers expect
        let code = avformat_write_header(format, &options)
        guard code >= 0 else { throw failure("write the header of", code) }
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        guard let frame, let encoder else { throw failure("write to", elimage_averror(EINVAL)) }
        guard buffer.format == .i420, buffer.width == Int(encoder.pointee.width), buffer.height == Int(encoder.pointee.height) else {
            throw ELImageError.invalidInput(
                what: "frame \(number) is \(buffer.width)x\(buffer.height) \(buffer.format), \(path) is \(encoder.pointee.width)x\(encoder.pointee.height) i420",
                hint: "keep the picture size constant, or write a new file")
        }
        var code = av_frame_make_writable(frame)
        guard code >= 0 else { throw failure("write to", code) }
        try fill(frame, from: &buffer)
        let first = firstTime ?? buffer.timestamp
        if firstTime == nil {
            timeline.withLock { $0.origin = MediaTimeMath.ticks(first, timescale: $0.timescale) }
        }
        firstTime = first
        let ticks = Int64(((buffer.timestamp.seconds - first.seconds) * Double(ticksPerSecond)).rounded())
        // Strictly increasing: two frames within one tick (GIF's hundredth) get the next tick.
        lastTicks = max(ticks, lastTicks + 1)
        frame.pointee.pts = lastTicks
        code = avcodec_send_frame(encoder, frame)
        guard code >= 0 else { throw failure("encode frame \(number) of", code) }
        try drain()
        framesWritten += 1
        if audio != nil {
            let (timescale, origin) = timeline.withLock { ($0.timescale, $0.origin ?? 0) }
            let end = MediaTimeMath.ticks(buffer.timestamp, timescale: timescale) - origin + frameTicks
            videoEnd = max(videoEnd ?? end, end)
            try writeSound(final: false)
        }
        return .more
    }

    /// Writes the sound up to where the video written so far ends (`final`: all of it up to
    /// there, the recording ends).
    private func writeSound(final: Bool) throws {
        guard let audio, let videoEnd, let format, let packet, let audioStream else { return }
        for sound in try audio.packets(before: videoEnd, final: final) {
            av_packet_unref(packet)
            var code = av_new_packet(packet, Int32(sound.data.count))
            guard code >= 0, let data = packet.pointee.data else { throw failure("allocate for", elimage_averror(ENOMEM)) }
            sound.data.withUnsafeBufferPointer { bytes in
                if let base = bytes.baseAddress { data.update(from: base, count: bytes.count) }
            }
            let from = AVRational(num: 1, den: sound.timescale)
            let to = audioStream.pointee.time_base
            packet.pointee.pts = av_rescale_q(sound.pts, from, to)
            packet.pointee.dts = av_rescale_q(sound.dts, from, to)
            packet.pointee.duration = av_rescale_q(sound.duration, from, to)
            packet.pointee.stream_index = audioStream.pointee.index
            code = av_interleaved_write_frame(format, packet)
            av_packet_unref(packet)
            guard code >= 0 else { throw failure("write sound to", code) }
        }
    }

    /// Copies (GIF: converts) the buffer's planes into the encoder's frame.
    private func fill(_ frame: UnsafeMutablePointer<AVFrame>, from buffer: inout PixelBuffer) throws {
        let planes = buffer.planes
        let (width, height) = (buffer.width, buffer.height)
        try buffer.withUnsafeMutableData { data in
            guard let base = data.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                throw failure("read a frame for", elimage_averror(EINVAL))
            }
            if let palette {
                var sources: [UnsafePointer<UInt8>?] = planes.map { UnsafePointer(base + $0.offset) } + [nil]
                var strides: [Int32] = planes.map { Int32($0.bytesPerRow) } + [0]
                var destinations = [frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2, frame.pointee.data.3]
                var lines = [frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2, frame.pointee.linesize.3]
                _ = sws_scale(palette, &sources, &strides, 0, Int32(height), &destinations, &lines)
                return
            }
            let destinations = [frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2]
            let lines = [frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2]
            for (index, plane) in planes.prefix(3).enumerated() {
                guard let destination = destinations[index] else { continue }
                let rows = index == 0 ? height : (height + 1) / 2
                let columns = index == 0 ? width : (width + 1) / 2
                for row in 0..<rows {
                    (destination + row * Int(lines[index])).update(from: base + plane.offset + row * plane.bytesPerRow, count: columns)
                }
            }
        }
    }

    /// Writes every packet the encoder has ready.
    private func drain() throws {
        guard let encoder, let packet, let format, let stream else { return }
        while true {
            let code = avcodec_receive_packet(encoder, packet)
            if code == FFmpegError.again || code == FFmpegError.endOfFile { return }
            guard code >= 0 else { throw failure("encode", code) }
            av_packet_rescale_ts(packet, encoder.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            let written = av_interleaved_write_frame(format, packet)
            av_packet_unref(packet)
            guard written >= 0 else { throw failure("write a frame to", written) }
        }
    }

    /// Flushes the encoder and writes the container's end, still under the temporary name.
    func finish() throws {
        guard !finished, let encoder, let format else { return }
        finished = true
        defer { audio?.source.recordingEnded() }
        var code = avcodec_send_frame(encoder, nil)
        guard code >= 0 || code == FFmpegError.endOfFile else { throw failure("finish the encoder of", code) }
        try drain()
        try writeSound(final: true)
        code = av_write_trailer(format)
        guard code >= 0 else { throw failure("finish", code) }
        if let avio { avio_flush(avio) }
        try file.synchronize()
        try file.close()
    }

    func publish() throws {
        guard framesWritten > 0 else {
            file.remove()
            return
        }
        try file.publish()
    }

    func salvage(after error: ELImageError) {
        // What was encoded stays: the container is closed as far as it can be.
        if framesWritten > 0, (try? finish()) != nil, (try? file.publish()) != nil { return }
        discard()
    }

    func discard() {
        finished = true
        audio?.source.recordingEnded()
        try? file.close()
        file.remove()
    }

    private func failure(_ operation: String, _ code: Int32) -> ELImageError {
        MP4Muxer.failure(operation, path, code)
    }

    private func release() {
        if let avio {
            if avio.pointee.buffer != nil { av_freep(&avio.pointee.buffer) }
            var pointer: UnsafeMutablePointer<AVIOContext>? = avio
            avio_context_free(&pointer)
            self.avio = nil
        }
        if let format {
            format.pointee.pb = nil
            avformat_free_context(format)
            self.format = nil
        }
        avcodec_free_context(&encoder)
        av_frame_free(&frame)
        av_packet_free(&packet)
        if let palette { sws_freeContext(palette) }
        palette = nil
    }

    // MARK: AVIO callbacks over the staged file

    private static func write(_ opaque: UnsafeMutableRawPointer?, _ data: UnsafePointer<UInt8>?, _ count: Int32) -> Int32 {
        guard let opaque else { return elimage_averror(EINVAL) }
        let file = Unmanaged<POSIXFileWriter>.fromOpaque(opaque).takeUnretainedValue()
        guard let data, count > 0 else { return 0 }
        do {
            try file.write(UnsafeRawBufferPointer(start: data, count: Int(count)))
            return count
        } catch let ELImageError.io(_, _, number, _) where number != 0 {
            return elimage_averror(number)
        } catch {
            return elimage_averror(EIO)
        }
    }

    private static func seek(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
        guard let opaque else { return Int64(elimage_averror(EINVAL)) }
        let file = Unmanaged<POSIXFileWriter>.fromOpaque(opaque).takeUnretainedValue()
        if whence & AVSEEK_SIZE != 0 { return file.size }
        let position = file.seek(to: offset, whence: whence & ~AVSEEK_FORCE)
        return position >= 0 ? position : Int64(elimage_averror(errno))
    }
}
