import ELImage

/// The recording's `FrameWriter`: x264 into a fragmented MP4 (with the audio track interleaved
/// into the same fragments) or a raw Annex-B stream. Made at the first frame on the readback
/// sink's worker thread, and used there only; what it writes is told through `progress`.
final class H264FrameWriter: FrameWriter {
    /// What the writer has done, for the recording's statistics and events.
    struct Progress: Sendable {
        /// Packets written by this step.
        var packets = 0
        var bytesWritten: Int64 = 0
        var fragments: [FragmentInfo] = []
        var audio: AudioStatistics?
    }

    private let file: any MediaFileWriter
    private let encoder: X264Encoder
    private let container: any PacketContainer
    private let audio: RecordingAudio?
    private let maximumBytes: Int64?
    private let progress: @Sendable (Progress) -> Void
    private var packetsOut = 0
    private var framesIn = 0
    private var largestPacket = 0
    /// Packets between keyframes: what x264 mostly holds.
    private var interPackets = 0, interBytes = 0
    private var finished = false

    /// Opens x264 and the container for frames of `width`×`height` whose chroma sits at
    /// `chromaLocation` (tagged in the VUI and the container); an MP4 carries `wallClock`'s times.
    init(file: any MediaFileWriter, container format: ContainerFormat, settings: EncoderSettings,
         width: Int, height: Int, colorSpace: ColorSpace, chromaLocation: ChromaLocation, timescale: Int32, frameDuration: Int64,
         audio: RecordingAudio?, wallClock: RecordingWallClock?, maximumBytes: Int64?,
         progress: @escaping @Sendable (Progress) -> Void) throws {
        self.file = file
        self.audio = audio
        self.maximumBytes = maximumBytes
        self.progress = progress
        // Raw H.264 repeats its headers before every keyframe and keeps a constant rate (no container
        // carries the times); MP4 keeps the headers in its sample description.
        var isAnnexB: Bool { if case .annexB = format { true } else { false } }
        encoder = try X264Encoder(width: width, height: height, settings: settings, colorSpace: colorSpace,
                                  chromaLocation: chromaLocation, timescale: timescale, keyframeInterval: settings.keyframeInterval,
                                  repeatHeaders: isAnnexB, constantRate: isAnnexB)
        switch format {
        case let .mp4(fragmentDuration):
            container = try MP4Muxer(writer: file, width: width, height: height, timescale: timescale,
                                     colorSpace: colorSpace, chromaLocation: chromaLocation, headers: try encoder.headers(),
                                     fragmentDuration: fragmentDuration, frameDuration: frameDuration, audio: audio,
                                     wallClock: wallClock)
        case let .annexB(syncInterval):
            container = AnnexBWriter(writer: file, timescale: timescale, syncInterval: syncInterval)
        }
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        framesIn = number + 1
        if let packet = try encoder.encode(&buffer, pts: time, frameNumber: number) { try write(packet) }
        guard let maximumBytes else { return .more }
        // What the file would hold if it were finished after the next frame: the frames x264
        // holds at the average size of frames between keyframes (half the largest before one is
        // known), two of the largest (a keyframe may come), closing boxes.
        let average = interPackets > 0 ? interBytes / interPackets : largestPacket / 2
        let projected = container.bytesWritten + container.pendingBytes
            + Int64(encoder.delayedFrames * average + 2 * largestPacket) + 16_384
        return projected >= maximumBytes ? .full : .more
    }

    private func write(_ packet: EncodedPacket) throws {
        largestPacket = max(largestPacket, packet.data.count)
        if !packet.isKeyframe { (interPackets, interBytes) = (interPackets + 1, interBytes + packet.data.count) }
        let fragment = try container.write(packet, frameNumber: packetsOut)
        packetsOut += 1
        progress(Progress(packets: 1, bytesWritten: container.bytesWritten, fragments: fragment.map { [$0] } ?? [],
                          audio: audio?.statistics))
    }

    /// Drains x264 and writes the closing boxes (the file stays under its temporary name).
    func finish() throws {
        var flushed = framesIn
        while let packet = try encoder.flush(frameNumber: flushed) {
            try write(packet)
            flushed += 1
        }
        let fragments = try container.finish()
        finished = true
        progress(Progress(bytesWritten: container.bytesWritten, fragments: fragments, audio: audio?.statistics))
    }

    func publish() throws { try file.publish() }

    /// After an encoder error the container is finished, after a write error it is abandoned;
    /// what was written is put in place (a file with nothing in it is removed).
    func salvage(after error: ELImageError) {
        if !finished {
            finished = true
            if case .io = error { container.abandon() } else if (try? container.finish()) == nil { container.abandon() }
        }
        progress(Progress(bytesWritten: container.bytesWritten))
        if container.bytesWritten == 0 { file.remove() } else { try? file.publish() }
    }

    func discard() {
        if !finished {
            finished = true
            container.abandon()
        }
        file.remove()
    }
}
