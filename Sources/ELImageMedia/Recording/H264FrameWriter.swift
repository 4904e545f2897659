import ELImage
import Foundation

/// The recording's `FrameWriter`: x264 into fragmented MP4 files (with the audio track interleaved
/// into the same fragments) or raw Annex-B streams: one file, or a segmented recording's files
/// (`SegmentedOutput`). Made at the first frame on the readback sink's worker thread, and used
/// there only; what it writes is told through `progress`.
final class H264FrameWriter: FrameWriter {
    /// What the writer has done, for the recording's statistics and events.
    struct Progress: Sendable {
        /// Packets written by this step.
        var packets = 0
        var bytesWritten: Int64 = 0
        var fragments: [FragmentInfo] = []
        var segments: [SegmentedOutput.SegmentReport] = []
        var audio: AudioStatistics?
        /// Frames the pre-record buffer let go before the trigger (never in a file).
        var preRecordDiscarded = 0
        var preRecordPeakBytes: Int64 = 0
        /// A live stream's counters (`StreamFrameWriter`).
        var stream: StreamStatistics?
    }

    private let encoder: X264Encoder
    private let output: SegmentedOutput
    private let audio: RecordingAudio?
    private let maximumBytes: Int64?
    private let progress: @Sendable (Progress) -> Void
    private let trigger: RecordingTrigger?
    private var framesIn = 0
    private var largestPacket = 0
    /// Packets between keyframes: what x264 mostly holds.
    private var interPackets = 0, interBytes = 0
    private var finished = false

    /// Opens x264 for frames of `width`×`height` whose chroma sits at `chromaLocation` (tagged in
    /// the VUI and the container); the files are opened as their first packets come. An MP4
    /// carries `wallClock`'s times.
    init(destination: RecordingDestination, container format: ContainerFormat, settings: EncoderSettings,
         width: Int, height: Int, colorSpace: ColorSpace, chromaLocation: ChromaLocation, timescale: Int32, frameDuration: Int64,
         audio: RecordingAudio?, wallClock: RecordingWallClock?, maximumBytes: Int64?, trigger: RecordingTrigger? = nil,
         progress: @escaping @Sendable (Progress) -> Void) throws {
        self.audio = audio
        self.maximumBytes = maximumBytes
        self.progress = progress
        self.trigger = trigger
        // Raw H.264 repeats its headers before every keyframe and keeps a constant rate (no container
        // carries the times); MP4 keeps the headers in its sample description.
        var isAnnexB: Bool { if case .annexB = format { true } else { false } }
        let encoder = try X264Encoder(width: width, height: height, settings: settings, colorSpace: colorSpace,
                                      chromaLocation: chromaLocation, timescale: timescale, keyframeInterval: settings.keyframeInterval,
                                      repeatHeaders: isAnnexB, constantRate: isAnnexB)
        self.encoder = encoder
        let headers = try encoder.headers()
        let segments: RecordingSegments? = if case .segments(_, let segments) = destination { segments } else { nil }
        output = SegmentedOutput(segments: segments, timescale: timescale, trigger: trigger,
                                 releaseSound: { ticks in try audio?.release(before: ticks) }, open: { index, origin, taken in
            let startDate = wallClock?.date(atRecordingTime: origin) ?? Date()
            let file: any MediaFileWriter = switch destination {
            case .file(let writer): writer
            case .deferredFile(let names): try POSIXFileWriter(path: names.path(startingAt: startDate))
            case .segments(let names, _):
                try POSIXFileWriter(path: names.path(forSegment: index, startingAt: startDate, avoiding: taken))
            case .stream(let target, _):
                throw ELImageError.invalidState(node: "VideoEncoder", reason: "the stream to \(target) has no file; this is a bug")
            }
            let container: any PacketContainer
            do {
                switch format {
                case let .mp4(fragmentDuration):
                    container = try MP4Muxer(writer: file, width: width, height: height, timescale: timescale,
                                             colorSpace: colorSpace, chromaLocation: chromaLocation, headers: headers,
                                             fragmentDuration: fragmentDuration, frameDuration: frameDuration, audio: audio,
                                             wallClock: wallClock, origin: origin)
                case let .annexB(syncInterval):
                    container = AnnexBWriter(writer: file, timescale: timescale, syncInterval: syncInterval)
                }
            } catch {
                try? file.close()
                file.remove()
                throw error
            }
            return SegmentedOutput.Segment(file: file, container: container, origin: origin, startDate: startDate)
        }, report: { report in progress(Progress(segments: [report])) })
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        framesIn = number + 1
        // A file's size with the frames x264 still holds: past a segment's length, this frame starts the next.
        // (The frames it holds are mostly between keyframes: counted at their average size once one is known.)
        let held = interPackets > 0 ? encoder.delayedFrames * interBytes / interPackets : 0
        let start = trigger?.fileStart  // read once: the trigger may be pulled meanwhile
        let cut = output.wantsKeyframe(at: time, projectedBytes: output.segmentBytes + Int64(held), triggerStart: start)
        // Pre-record: until the trigger (and up to the file's start), every frame is a keyframe, so
        // the file can start at whichever frame the trigger asks for.
        let preRecording = trigger != nil && (start.map { time <= $0 } ?? true)
        let keyframe = cut || preRecording
        if let packet = try encoder.encode(&buffer, pts: time, frameNumber: number, keyframe: keyframe) { try write(packet) }
        guard let maximumBytes else { return .more }
        return projected(output.bytesWritten + output.pendingBytes) >= maximumBytes ? .full : .more
    }

    /// What a file holding `bytes` would hold if it were finished after the next frame: the
    /// frames x264 holds at the average size of frames between keyframes (half the largest before
    /// one is known), two of the largest (a keyframe may come), closing boxes.
    private func projected(_ bytes: Int64) -> Int64 {
        let average = interPackets > 0 ? interBytes / interPackets : largestPacket / 2
        return bytes + Int64(encoder.delayedFrames * average + 2 * largestPacket) + 16_384
    }

    private func write(_ packet: EncodedPacket) throws {
        largestPacket = max(largestPacket, packet.data.count)
        if !packet.isKeyframe { (interPackets, interBytes) = (interPackets + 1, interBytes + packet.data.count) }
        let written = try output.write(packet)
        report(written)
    }

    private func report(_ written: SegmentedOutput.Written) {
        progress(Progress(packets: written.packets, bytesWritten: output.bytesWritten, fragments: written.fragments,
                          audio: audio?.statistics, preRecordDiscarded: written.discarded,
                          preRecordPeakBytes: output.preRecordPeakBytes))
    }

    /// Drains x264 and writes the closing boxes (the file stays under its temporary name).
    func finish() throws {
        var flushed = framesIn
        while let packet = try encoder.flush(frameNumber: flushed) {
            try write(packet)
            flushed += 1
        }
        let written = try output.finish()
        finished = true
        report(written)
    }

    func publish() throws { try output.publish() }

    /// After an encoder error the open file is finished, after a write error it is abandoned;
    /// what was written is put in place (a file with nothing in it is removed).
    func salvage(after error: ELImageError) {
        if !finished {
            finished = true
            if case .io = error { output.abandon() } else if (try? output.finish()) == nil { output.abandon() }
        }
        progress(Progress(bytesWritten: output.bytesWritten))
        output.salvage()
    }

    /// Removes every file of the recording.
    func discard() {
        if !finished {
            finished = true
            output.abandon()
        }
        output.discard()
    }
}
