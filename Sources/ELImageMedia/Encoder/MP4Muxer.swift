import CFFmpeg
import ELImage
import Foundation

/// A container that takes encoded packets in decoding order (the encoder thread owns it).
protocol PacketContainer: AnyObject {
    /// Writes `packet` (frame `frameNumber` in decoding order); returns the fragment that was
    /// completed and flushed to disk before it, if one was.
    func write(_ packet: EncodedPacket, frameNumber: Int) throws -> FragmentInfo?
    /// Writes what is held back and the closing boxes, flushes to disk and closes the file;
    /// returns the fragments this completed. `endsRecording` is false for a segment that the
    /// next file continues (its sound is not closed).
    func finish(endsRecording: Bool) throws -> [FragmentInfo]
    /// Closes the file without writing anything more (after a failure).
    func abandon()
    /// Bytes in the file so far.
    var bytesWritten: Int64 { get }
    /// Bytes of packets taken but not yet in the file (the fragment being built).
    var pendingBytes: Int64 { get }
}

/// Fragmented MP4 through libavformat's mov muxer, written through a custom `AVIOContext` over a
/// `MediaFileWriter` (so write errors keep their `errno` and tests can inject them).
///
/// The fragments are cut here (`movflags=frag_custom`): before the first packet whose decoding
/// time is a fragment interval past the fragment's start, keyframe or not (a fragment continues
/// the stream of the one before it; keyframes are where x264 puts them, so the fragment interval
/// costs no bitrate). Each fragment is flushed and `fdatasync`ed, so what was flushed survives a
/// crash: a file cut after any fragment plays up to it. `delay_moov` writes the `moov` box with the first fragment, when the
/// stream's first timestamps are known, so an edit list can start the presentation at zero even
/// with B-frames (whose first decoding times are negative).
///
/// One packet is held back until the next arrives, so every sample gets its exact duration (the
/// distance to the next decoding time).
///
/// With an audio track (`RecordingAudio`), its packets up to the presentation end of the video
/// muxed so far are written before each video packet, so every fragment holds both tracks up to
/// the same time, and the audio is cut at the video's end when the file is finished.
///
/// With a `RecordingWallClock`, the movie's `creation_time` is the first frame's wall-clock time
/// and every fragment starts with a `prft` box giving its first sample's (`write_prft`, fed by
/// the `AV_PKT_DATA_PRFT` of the packet that starts the fragment).
final class MP4Muxer: PacketContainer {
    private let output: AVIOOutput
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var avio: UnsafeMutablePointer<AVIOContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var streamTimeBase: AVRational
    private let sourceTimeBase: AVRational
    private let fragmentTicks: Int64
    private let nominalDuration: Int64

    private var held: (packet: EncodedPacket, number: Int)?
    private var lastDuration: Int64
    private var fragmentStart: Int64?
    private var firstDTS: Int64?
    private var framesInFile = 0
    private var framesInFragment = 0
    private var fragmentIndex = 0
    private(set) var pendingBytes: Int64 = 0
    private var finished = false
    private let audio: RecordingAudio?
    private var audioStream: UnsafeMutablePointer<AVStream>?
    /// Where the video's presentation ends so far (the largest pts + duration).
    private var videoEnd: Int64?
    private var audioWritten = false
    private let wallClock: RecordingWallClock?
    /// The recording time (ticks) of this file's zero: 0, or a segment's first frame.
    private let origin: Int64

    var bytesWritten: Int64 { output.bytes }

    /// Opens the muxer for a `width` x `height` H.264 stream with time base 1/`timescale`.
    /// Nothing is written until the first fragment is complete.
    /// - Parameters:
    ///   - chromaLocation: where the planes' chroma sits (`chroma_location`, as x264's VUI says).
    ///   - headers: SPS and PPS in Annex-B form (from `x264_encoder_headers`); the muxer turns
    ///     them into the `avcC` box.
    ///   - frameDuration: the nominal frame duration in ticks (the last sample's duration).
    ///   - wallClock: the frames' wall-clock times, for `creation_time` and the `prft` boxes.
    ///   - origin: the recording time (ticks) the file's times start from: a segment's first
    ///     frame (`SegmentedOutput`); its sound is taken from the same time.
    init(writer: any MediaFileWriter, width: Int, height: Int, timescale: Int32, colorSpace: ColorSpace,
         chromaLocation: ChromaLocation, headers: [UInt8], fragmentDuration: Duration, frameDuration: Int64,
         audio: RecordingAudio? = nil, wallClock: RecordingWallClock? = nil, origin: Int64 = 0) throws {
        output = AVIOOutput(writer: writer)
        self.origin = origin
        self.audio = audio
        self.wallClock = wallClock
        sourceTimeBase = AVRational(num: 1, den: timescale)
        streamTimeBase = sourceTimeBase
        let (seconds, attoseconds) = fragmentDuration.components
        let fragment = Double(seconds) + Double(attoseconds) / 1e18
        fragmentTicks = max(1, Int64((fragment * Double(timescale)).rounded()))
        nominalDuration = max(1, frameDuration)
        lastDuration = nominalDuration

        var context: UnsafeMutablePointer<AVFormatContext>?
        FFmpegLog.installed()
        var code = avformat_alloc_output_context2(&context, nil, "mp4", nil)
        guard code >= 0, let context else {
            throw Self.failure("set up the MP4 muxer for", writer.path, code)
        }
        format = context
        do {
            guard let buffer = av_malloc(AVIOOutput.bufferSize) else { throw Self.failure("allocate for", writer.path, elimage_averror(ENOMEM)) }
            let opaque = Unmanaged.passUnretained(output).toOpaque()
            guard let avio = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(AVIOOutput.bufferSize), 1, opaque, nil,
                                                { opaque, bytes, count in AVIOOutput.write(opaque, UnsafeRawPointer(bytes), count) },
                                                nil) else {
                av_free(buffer)
                throw Self.failure("allocate for", writer.path, elimage_averror(ENOMEM))
            }
            self.avio = avio
            context.pointee.pb = avio
            context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO

            guard let stream = avformat_new_stream(context, nil), let parameters = stream.pointee.codecpar else {
                throw Self.failure("add a video stream to", writer.path, elimage_averror(ENOMEM))
            }
            let description = H264StreamDescription(width: width, height: height,
                                                    tags: ColorTags(colorSpace, chromaLocation: chromaLocation), headers: headers)
            guard description.fill(parameters) else {
                throw Self.failure("allocate for", writer.path, elimage_averror(ENOMEM))
            }
            if let hdr = colorSpace.hdr { FFmpegHDRMetadata.attach(hdr, to: stream) }
            stream.pointee.time_base = sourceTimeBase
            stream.pointee.avg_frame_rate = AVRational(num: timescale, den: Int32(clamping: nominalDuration))
            if let audio {
                guard let track = avformat_new_stream(context, nil), track.pointee.codecpar != nil else {
                    throw Self.failure("add an audio stream to", writer.path, elimage_averror(ENOMEM))
                }
                code = avcodec_parameters_copy(track.pointee.codecpar, audio.source.format.parameters)
                guard code >= 0 else { throw Self.failure("add an audio stream to", writer.path, code) }
                track.pointee.codecpar.pointee.codec_tag = 0
                track.pointee.time_base = AVRational(num: 1, den: Int32(max(1, audio.source.format.sampleRate)))
                audioStream = track
            }

            var options: OpaquePointer?
            defer { av_dict_free(&options) }
            av_dict_set(&options, "movflags", "empty_moov+delay_moov+frag_custom+default_base_moof", 0)
            av_dict_set(&options, "use_editlist", "1", 0)
            if let wallClock {
                av_dict_set(&context.pointee.metadata, "creation_time", wallClock.creationTime(atRecordingTime: origin), 0)
                av_dict_set(&options, "write_prft", "wallclock", 0)
            }
            code = avformat_write_header(context, &options)
            guard code >= 0 else {
                throw output.error ?? Self.failure("write the MP4 header of", writer.path, code)
            }
            streamTimeBase = stream.pointee.time_base
            guard let packet = av_packet_alloc() else {
                throw Self.failure("allocate for", writer.path, elimage_averror(ENOMEM))
            }
            self.packet = packet
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    func write(_ packet: EncodedPacket, frameNumber: Int) throws -> FragmentInfo? {
        guard !finished else {
            throw ELImageError.invalidState(node: "VideoEncoder", reason: "frame \(frameNumber) came after \(output.path) was finished")
        }
        pendingBytes += Int64(packet.data.count)
        guard let previous = held else {
            held = (packet, frameNumber)
            return nil
        }
        let duration = packet.dts - previous.packet.dts
        if duration > 0 { lastDuration = duration }
        held = (packet, frameNumber)
        return try mux(previous.packet, number: previous.number, duration: max(1, duration))
    }

    func finish(endsRecording: Bool) throws -> [FragmentInfo] {
        guard !finished, let context = format else { return [] }
        finished = true
        var fragments: [FragmentInfo] = []
        if let last = held {
            held = nil
            if let cut = try mux(last.packet, number: last.number, duration: lastDuration) { fragments.append(cut) }
        }
        if let end = videoEnd { try writeAudio(before: end, final: endsRecording) }
        let pendingFrames = framesInFragment
        let code = av_write_trailer(context)
        guard code >= 0 else { throw output.error ?? Self.failure("finish", output.path, code) }
        if let avio { avio_flush(avio) }
        if let error = output.error { throw error }
        try output.writer.synchronize()
        try output.writer.close()
        if pendingFrames > 0 {
            fragmentIndex += 1
            framesInFile += pendingFrames
            framesInFragment = 0
            pendingBytes = 0
            fragments.append(FragmentInfo(index: fragmentIndex, framesCompleted: framesInFile,
                                          duration: duration(ofTicks: (lastMuxedDTS ?? 0) + lastDuration - (firstDTS ?? 0)),
                                          bytes: output.bytes))
        }
        release()
        return fragments
    }

    func abandon() {
        finished = true
        if let avio { avio_flush(avio) }
        try? output.writer.close()
        release()
    }

    private var lastMuxedDTS: Int64?

    /// Cuts a fragment first when this packet starts a new one, then hands it to the muxer.
    private func mux(_ encoded: EncodedPacket, number: Int, duration: Int64) throws -> FragmentInfo? {
        guard let context = format, let packet else { return nil }
        var completed: FragmentInfo?
        if firstDTS == nil { firstDTS = encoded.dts }
        // Sound up to where the video muxed so far is shown (its reordered frames included), so a
        // fragment ends with both tracks at the same time.
        if let end = videoEnd { try writeAudio(before: end, final: false) }
        if let start = fragmentStart, framesInFragment > 0 {
            let elapsed = encoded.dts - start
            // The moov box goes out with the first fragment and must know the audio track's start:
            // the first fragment waits (up to five intervals) for a live source's first packets.
            let audioKnown = audio == nil || audioWritten || fragmentIndex > 0 || elapsed >= 5 * fragmentTicks
            if elapsed >= fragmentTicks, audioKnown {
                completed = try flushFragment(endingAt: encoded.dts)
            }
        }
        if framesInFragment == 0 { fragmentStart = encoded.dts }

        av_packet_unref(packet)
        var code = av_new_packet(packet, Int32(encoded.data.count))
        guard code >= 0, let data = packet.pointee.data else { throw Self.failure("allocate for", output.path, code) }
        encoded.data.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { data.update(from: base, count: encoded.data.count) }
        }
        packet.pointee.stream_index = 0
        packet.pointee.pts = av_rescale_q(encoded.pts - origin, sourceTimeBase, streamTimeBase)
        packet.pointee.dts = av_rescale_q(encoded.dts - origin, sourceTimeBase, streamTimeBase)
        packet.pointee.duration = av_rescale_q(duration, sourceTimeBase, streamTimeBase)
        if encoded.isKeyframe { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        if let wallClock, framesInFragment == 0 {
            // The fragment's prft box reads its first packet's time; the others need none.
            let size = MemoryLayout<AVProducerReferenceTime>.size
            guard let side = av_packet_new_side_data(packet, AV_PKT_DATA_PRFT, size) else {
                throw Self.failure("allocate for", output.path, elimage_averror(ENOMEM))
            }
            UnsafeMutableRawPointer(side).storeBytes(
                of: AVProducerReferenceTime(wallclock: wallClock.microseconds(atRecordingTime: encoded.pts), flags: 0),
                as: AVProducerReferenceTime.self)
        }
        code = av_write_frame(context, packet)
        av_packet_unref(packet)
        guard code >= 0 else {
            throw output.error ?? Self.failure("write frame \(number) to", output.path, code)
        }
        lastMuxedDTS = encoded.dts
        videoEnd = max(videoEnd ?? .min, encoded.pts + duration)
        framesInFragment += 1
        return completed
    }

    /// Writes the audio packets that start before recording time `ticks` (video ticks).
    private func writeAudio(before ticks: Int64, final: Bool) throws {
        guard let audio, let track = audioStream, let context = format, let packet else { return }
        for encoded in try audio.packets(before: ticks, final: final) {
            av_packet_unref(packet)
            var code = av_new_packet(packet, Int32(encoded.data.count))
            guard code >= 0, let data = packet.pointee.data else { throw Self.failure("allocate for", output.path, code) }
            encoded.data.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { data.update(from: base, count: encoded.data.count) }
            }
            let base = AVRational(num: 1, den: encoded.timescale)
            // The file's zero is the segment's first frame; sound wholly before a later zero (a
            // pre-record's start) is not the file's.
            let shift = av_rescale_q(origin, sourceTimeBase, base)
            if origin > 0, encoded.pts + encoded.duration <= shift { continue }
            packet.pointee.stream_index = track.pointee.index
            packet.pointee.pts = av_rescale_q(encoded.pts - shift, base, track.pointee.time_base)
            packet.pointee.dts = av_rescale_q(encoded.dts - shift, base, track.pointee.time_base)
            packet.pointee.duration = av_rescale_q(encoded.duration, base, track.pointee.time_base)
            packet.pointee.flags |= AV_PKT_FLAG_KEY
            code = av_write_frame(context, packet)
            av_packet_unref(packet)
            guard code >= 0 else { throw output.error ?? Self.failure("write audio to", output.path, code) }
            pendingBytes += Int64(encoded.data.count)
            audioWritten = true
        }
    }

    /// Writes the fragment built so far (moof + mdat), flushes it and syncs it to disk.
    private func flushFragment(endingAt dts: Int64) throws -> FragmentInfo {
        guard let context = format else {
            throw ELImageError.invalidState(node: "VideoEncoder", reason: "\(output.path) is closed")
        }
        // With delay_moov, the first flush writes only the moov box (now that the start of the
        // stream is known); a second one writes the fragment.
        for _ in 0..<(fragmentIndex == 0 ? 2 : 1) {
            let code = av_write_frame(context, nil)
            guard code >= 0 else { throw output.error ?? Self.failure("write a fragment to", output.path, code) }
        }
        if let avio { avio_flush(avio) }
        if let error = output.error { throw error }
        try output.writer.synchronize()
        fragmentIndex += 1
        framesInFile += framesInFragment
        framesInFragment = 0
        pendingBytes = 0
        return FragmentInfo(index: fragmentIndex, framesCompleted: framesInFile,
                            duration: duration(ofTicks: dts - (firstDTS ?? dts)), bytes: output.bytes)
    }

    private func duration(ofTicks ticks: Int64) -> Duration {
        let scale = Int64(sourceTimeBase.den)
        return .seconds(ticks / scale) + .nanoseconds((ticks % scale) * 1_000_000_000 / scale)
    }

    private func release() {
        if packet != nil { av_packet_free(&packet) }
        if let avio {
            if avio.pointee.buffer != nil { av_freep(&avio.pointee.buffer) }
            var pointer: UnsafeMutablePointer<AVIOContext>? = avio
            avio_context_free(&pointer)
            self.avio = nil
        }
        if let context = format {
            context.pointee.pb = nil
            avformat_free_context(context)
            format = nil
        }
    }

    static func failure(_ operation: String, _ path: String, _ code: Int32) -> ELImageError {
        for number in [ENOSPC, EIO, EACCES, EDQUOT, EFBIG, ENOMEM] where code == elimage_averror(number) {
            return .io(file: path, operation: operation, errno: number, hint: WriteFailureHint.text(for: number))
        }
        return .malformedMedia(file: path, frame: nil, reason: "libavformat cannot \(operation) it: \(FFmpegError.text(code))")
    }
}

/// The `AVIOContext`'s opaque: forwards libavformat's buffered output to a `MediaFileWriter` and
/// keeps the first error with its `errno`.
final class AVIOOutput {
    static let bufferSize = 1 << 16
    let writer: any MediaFileWriter
    var path: String { writer.path }
    private(set) var bytes: Int64 = 0
    private(set) var error: ELImageError?

    init(writer: any MediaFileWriter) { self.writer = writer }

    static func write(_ opaque: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ count: Int32) -> Int32 {
        guard let opaque else { return elimage_averror(EINVAL) }
        let output = Unmanaged<AVIOOutput>.fromOpaque(opaque).takeUnretainedValue()
        if let error = output.error { return Self.code(of: error) }
        guard let data, count > 0 else { return 0 }
        do {
            try output.writer.write(UnsafeRawBufferPointer(start: data, count: Int(count)))
            output.bytes += Int64(count)
            return count
        } catch let error as ELImageError {
            output.error = error
            return Self.code(of: error)
        } catch {
            output.error = .io(file: output.path, operation: "write to", errno: EIO, hint: "\(error)")
            return elimage_averror(EIO)
        }
    }

    private static func code(of error: ELImageError) -> Int32 {
        if case let .io(_, _, number, _) = error, number != 0 { return elimage_averror(number) }
        return elimage_averror(EIO)
    }
}
