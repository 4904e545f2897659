import ELImage
import Foundation

/// One recording: from `VideoEncoder.start` to its end (stop, limit, end of stream, failure or
/// cancel). The render thread feeds it (`take`), its encoder thread drains its queue.
final class RecordingSession: Sendable {
    /// What travels from the render thread to the encoder thread.
    enum Message: Sendable {
        case frame(FrameHandoff, pts: Int64, number: Int)
        case finish(RecordingStopReason)
        case cancel
    }

    enum Phase: Equatable {
        case recording
        case paused
        /// A finish or cancel is on its way to the encoder thread.
        case closing
        case ended
    }

    /// The render thread's bookkeeping and the shared counters.
    private struct State {
        var phase = Phase.recording
        var statistics = RecordingStatistics()
        var cancelRequested = false
        var threadStarted = false
        var context: RenderContext?
        var colorSpace: ColorSpace?
        var timescale: Int32?
        var origin: Int64?
        var offset: Int64 = 0
        var lastPTS: Int64?
        var lastStep: Int64?
        var resumePending = false
        /// Frames handed to the recording (numbers for messages).
        var framesTaken = 0
        /// Frames whose GPU conversion failed (counted in and dropped).
        var conversionFailures = 0
        /// Frames that got into the queue but will not be encoded (drained at a stop or failure).
        var lost = 0
        var firstFrameWallTime: ContinuousClock.Instant?
        var size: (width: Int, height: Int)?
        /// The timeline the audio track is mapped with (origin, pauses).
        var timeline = AudioTimeline()
    }

    let path: String
    let settings: EncoderSettings
    let container: ContainerFormat
    let limits: RecordingLimits
    private let writer: any MediaFileWriter
    private let queue: EncoderQueue<Message>
    private let state: Locked<State>
    private let result = WorkerOutcome<RecordingSummary>()
    private let emit: @Sendable (RecordingEvent) -> Void
    /// Reports failures to the render context's error handler, naming this node, and is closed by
    /// the context's `close()`. Weak: the node keeps its sessions.
    private weak let node: (any ImageInput & ClosableNode)?
    /// The audio track beside the video (MP4 only), used by the encoder thread.
    private let audio: RecordingAudio?

    init(writer: any MediaFileWriter, container: ContainerFormat, limits: RecordingLimits, settings: EncoderSettings,
         audio: (any AudioTrackSource)? = nil,
         node: any ImageInput & ClosableNode, emit: @escaping @Sendable (RecordingEvent) -> Void) {
        self.path = writer.path
        self.writer = writer
        self.container = container
        self.limits = limits
        self.settings = settings
        self.node = node
        self.emit = emit
        queue = EncoderQueue(capacity: settings.queueCapacity)
        let state = Locked(State())
        self.state = state
        self.audio = audio.map { RecordingAudio(source: $0, timeline: { state.withLock { $0.timeline } }) }
    }

    var phase: Phase { state.withLock { $0.phase } }

    var statistics: RecordingStatistics {
        state.withLock { state in
            var statistics = Self.counted(state, queue: queue)
            if let start = state.firstFrameWallTime, statistics.encoded > 0 {
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                if state.phase != .ended, seconds > 0 { statistics.achievedFramesPerSecond = Double(statistics.encoded) / seconds }
            }
            return statistics
        }
    }

    // MARK: Control (any thread)

    func pause() {
        state.withLock { state in
            if state.phase == .recording { state.phase = .paused }
        }
    }

    func resume() {
        state.withLock { state in
            if state.phase == .paused {
                state.phase = .recording
                state.resumePending = true
            }
        }
    }

    /// Asks the encoder thread to finish the file after the frames already queued.
    func requestFinish(_ reason: RecordingStopReason) {
        let unstarted = state.withLock { state -> Bool in
            guard state.phase == .recording || state.phase == .paused else { return false }
            state.phase = .closing
            return !state.threadStarted
        }
        if unstarted {
            endWithoutFrames(cancelled: false)
        } else {
            queue.close(with: .finish(reason))
        }
    }

    /// Asks the encoder thread to stop at once and remove the file.
    func requestCancel() {
        let (unstarted, wasOpen) = state.withLock { state -> (Bool, Bool) in
            state.cancelRequested = true
            guard state.phase == .recording || state.phase == .paused else { return (false, false) }
            state.phase = .closing
            return (!state.threadStarted, true)
        }
        if unstarted {
            endWithoutFrames(cancelled: true)
        } else if wasOpen {
            queue.close(with: .cancel)
        }
        // Already closing: the encoder thread sees `cancelRequested` when it ends.
    }

    /// Waits until the recording has ended and its encoder thread is joined, and returns how.
    func outcome() async -> Result<RecordingSummary, ELImageError> {
        await result.value()
    }

    // MARK: Render thread

    /// Takes a frame into the recording: stamps it, packs its planes on the GPU and queues them.
    func take(_ frame: TextureFrame, in context: isolated RenderContext) throws {
        enum Decision {
            case skip
            case limit
            case queue(pts: Int64, number: Int, colorSpace: ColorSpace, startThread: Bool)
        }
        let decision = state.withLock { state -> Decision in
            guard state.phase == .recording else { return .skip }
            let colorSpace = state.colorSpace ?? settings.colorSpace ?? frame.colorSpace
            let timescale = state.timescale ?? settings.timescale ?? Self.timescale(for: frame.timestamp)
            if state.colorSpace == nil {
                state.colorSpace = colorSpace
                state.timescale = timescale
                state.context = context
                state.size = (frame.width, frame.height)
                state.firstFrameWallTime = .now
                state.timeline.timescale = timescale
            }
            let pts = stamp(frame.timestamp, timescale: timescale, state: &state)
            if let maximum = limits.maximumDuration, pts >= Self.ticks(maximum, timescale: timescale) {
                state.phase = .closing
                return .limit
            }
            state.lastPTS = pts
            state.framesTaken += 1
            state.statistics.recordedDuration = Self.duration(ticks: pts + (state.lastStep ?? nominalStep(timescale)),
                                                              timescale: timescale)
            let startThread = !state.threadStarted
            state.threadStarted = true
            return .queue(pts: pts, number: state.framesTaken - 1, colorSpace: colorSpace, startThread: startThread)
        }
        switch decision {
        case .skip:
            return
        case .limit:
            queue.close(with: .finish(.durationLimit))
            if !state.withLock({ $0.threadStarted }) { endWithoutFrames(cancelled: false) }
        case let .queue(pts, number, colorSpace, startThread):
            if startThread {
                do {
                    let thread = try context.makeWorker(name: "ELImage.encoder") { [self] error in
                        if let error { fail(error, encoder: nil, container: nil) } else { runEncoder() }
                    }
                    result.attach(thread)
                    if let node { context.register(node, stage: .sink) }
                    try thread.start()
                } catch {
                    // No thread: reported by `fail`; the frames that follow find the recording ended.
                    state.withLock { $0.threadStarted = false }
                    fail(error as? ELImageError ?? .invalidState(node: "VideoEncoder", reason: "\(error)"),
                         encoder: nil, container: nil)
                    return
                }
            }
            let pending: PendingReadback
            do {
                pending = try context.prepareReadback(of: frame, as: .i420, colorSpace: colorSpace, chromaLocation: .left,
                                                         chromaDownsampling: settings.chromaDownsampling)
            } catch {
                state.withLock { $0.conversionFailures += 1 }
                throw error
            }
            // The queue counts what got in and what was dropped (see `statistics`); a frame that
            // finds it closed (stopped or failed meanwhile) is not part of the recording.
            _ = queue.push(frame: .frame(FrameHandoff(pending), pts: pts, number: number),
                           wait: settings.whenQueueFull == .wait)
        }
    }

    /// The frame's presentation time in ticks from the recording's start: pauses removed, never
    /// going back.
    private func stamp(_ time: MediaTime, timescale: Int32, state: inout State) -> Int64 {
        let absolute = MediaTimeMath.ticks(time, timescale: timescale)
        let origin = state.origin ?? absolute
        state.origin = origin
        state.timeline.origin = origin
        var pts = absolute - origin - state.offset
        if let last = state.lastPTS {
            let step = state.lastStep ?? nominalStep(timescale)
            if state.resumePending || pts <= last {
                // After a pause (or a source that went back in time): continue one frame later.
                let gapStart = origin + state.offset + last + step
                state.offset += pts - (last + step)
                pts = last + step
                state.timeline.shifts.append(.init(from: absolute, gapStart: gapStart, offset: state.offset))
            } else {
                state.lastStep = pts - last
            }
        }
        state.resumePending = false
        return pts
    }

    private func nominalStep(_ timescale: Int32) -> Int64 {
        max(1, Int64(timescale) * Int64(settings.frameRate.denominator) / Int64(settings.frameRate.numerator))
    }

    // MARK: Encoder thread

    /// The encoder thread's loop: read back, encode, mux, until finished, cancelled or failed.
    private func runEncoder() {
        var buffer: PixelBuffer?
        var encoder: X264Encoder?
        var box: (any PacketContainer)?
        var packetsOut = 0
        var largestPacket = 0
        var interPackets = 0, interBytes = 0  // packets between keyframes: what x264 mostly holds

        func write(_ packet: EncodedPacket) throws {
            guard let box else { return }
            largestPacket = max(largestPacket, packet.data.count)
            if !packet.isKeyframe { (interPackets, interBytes) = (interPackets + 1, interBytes + packet.data.count) }
            let fragment = try box.write(packet, frameNumber: packetsOut)
            packetsOut += 1
            let audioCounts = audio?.statistics
            state.withLock { state in
                if let audioCounts { state.statistics.audio = audioCounts }
                state.statistics.encoded += 1
                state.statistics.bytesWritten = box.bytesWritten
                if fragment != nil { state.statistics.fragmentsWritten += 1 }
            }
            if let fragment { emit(.fragmentWritten(fragment)) }
        }

        while let message = queue.pop() {
            switch message {
            case let .frame(handoff, pts, number):
                let readStart = ContinuousClock.now
                do {
                    // Read, then release the planes (their textures go back to the pool) before encoding.
                    try handoff.take()?.read(into: &buffer, frame: number, file: path)
                } catch {
                    fail(Self.failure(error, frame: number, path: path), encoder: encoder, container: box)
                    return
                }
                let encodeStart = ContinuousClock.now
                defer {
                    let end = ContinuousClock.now
                    state.withLock { state in
                        state.statistics.readbackTime += encodeStart - readStart
                        state.statistics.encodeTime += end - encodeStart
                    }
                }
                do {
                    guard var picture = buffer else { continue }
                    buffer = nil
                    defer { buffer = picture }
                    if encoder == nil {
                        let opened = try open(width: picture.width, height: picture.height)
                        (encoder, box) = (opened.encoder, opened.container)
                        emit(.started(path: path, width: picture.width, height: picture.height))
                    }
                    guard let encoder else { continue }
                    if let packet = try encoder.encode(&picture, pts: pts, frameNumber: number) { try write(packet) }
                    if let maximum = limits.maximumBytes, let box {
                        // What the file would hold if it were finished after the next frame: the
                        // frames x264 holds at the average size of frames between keyframes (half
                        // the largest before one is known), two of the largest (a keyframe may
                        // come), closing boxes.
                        let average = interPackets > 0 ? interBytes / interPackets : largestPacket / 2
                        let projected = box.bytesWritten + box.pendingBytes
                            + Int64(encoder.delayedFrames * average + 2 * largestPacket) + 16_384
                        if projected >= maximum {
                            finish(.sizeLimit, encoder: encoder, container: box, write: write)
                            return
                        }
                    }
                } catch {
                    fail(Self.failure(error, frame: number, path: path), encoder: encoder, container: box)
                    return
                }
            case let .finish(reason):
                guard let encoder, let box else {
                    endWithoutFrames(cancelled: false)
                    return
                }
                finish(reason, encoder: encoder, container: box, write: write)
                return
            case .cancel:
                box?.abandon()
                if box == nil { try? writer.close() }
                writer.remove()
                discardQueue()
                end(cancelled: true, outcome: .failure(.invalidState(node: "VideoEncoder", reason: "the recording to \(path) was cancelled")))
                return
            }
        }
    }

    /// Opens x264 and the container for the first frame's size.
    private func open(width: Int, height: Int) throws -> (encoder: X264Encoder, container: any PacketContainer) {
        let (colorSpace, timescale) = state.withLock { ($0.colorSpace ?? .bt709, $0.timescale ?? 90_000) }
        let keyframeInterval = settings.keyframeInterval
        switch container {
        case let .mp4(fragmentDuration):
            let encoder = try X264Encoder(width: width, height: height, settings: settings, colorSpace: colorSpace,
                                          timescale: timescale, keyframeInterval: keyframeInterval, repeatHeaders: false)
            let muxer = try MP4Muxer(writer: writer, width: width, height: height, timescale: timescale,
                                     colorSpace: colorSpace, headers: try encoder.headers(),
                                     fragmentDuration: fragmentDuration, frameDuration: nominalStep(timescale),
                                     audio: audio)
            return (encoder, muxer)
        case let .annexB(syncInterval):
            let encoder = try X264Encoder(width: width, height: height, settings: settings, colorSpace: colorSpace,
                                          timescale: timescale, keyframeInterval: keyframeInterval, repeatHeaders: true,
                                          constantRate: true)
            return (encoder, AnnexBWriter(writer: writer, timescale: timescale, syncInterval: syncInterval))
        }
    }

    /// Drains x264, closes the container and ends the recording with its summary.
    private func finish(_ reason: RecordingStopReason, encoder: X264Encoder, container box: any PacketContainer,
                        write: (EncodedPacket) throws -> Void) {
        queue.close()
        discardQueue()
        var flushed = state.withLock { $0.framesTaken }
        do {
            while let packet = try encoder.flush(frameNumber: flushed) {
                try write(packet)
                flushed += 1
            }
            let fragments = try box.finish()
            let audioCounts = audio?.statistics
            state.withLock { state in
                if let audioCounts { state.statistics.audio = audioCounts }
                state.statistics.bytesWritten = box.bytesWritten
                state.statistics.fragmentsWritten += fragments.count
            }
            fragments.forEach { emit(.fragmentWritten($0)) }
        } catch {
            fail(Self.failure(error, frame: nil, path: path), encoder: nil, container: box)
            return
        }
        if state.withLock({ $0.cancelRequested }) {
            writer.remove()
            end(cancelled: true, outcome: .failure(.invalidState(node: "VideoEncoder", reason: "the recording to \(path) was cancelled")))
            return
        }
        do {
            try writer.publish()
        } catch {
            // The recording is complete under its temporary name (the error says where): keep it.
            report(Self.failure(error, frame: nil, path: path))
            return
        }
        let summary = state.withLock { state -> RecordingSummary in
            var statistics = Self.counted(state, queue: queue)
            if let start = state.firstFrameWallTime {
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                if seconds > 0 { statistics.achievedFramesPerSecond = Double(statistics.encoded) / seconds }
            }
            state.statistics = statistics
            return RecordingSummary(path: path, reason: reason, statistics: statistics,
                                    width: state.size?.width ?? 0, height: state.size?.height ?? 0,
                                    colorSpace: state.colorSpace ?? .bt709, timescale: state.timescale ?? 0)
        }
        emit(.finished(summary))
        end(cancelled: false, outcome: .success(summary))
    }

    /// Ends the recording after `error`: what was flushed stays in the file (after an encoder
    /// error the container is finished, after a write error it is abandoned), the error goes to
    /// the render context's error handler and to whoever waits in `stop()`.
    private func fail(_ error: ELImageError, encoder: X264Encoder?, container box: (any PacketContainer)?) {
        state.withLock { state in
            if state.phase != .ended { state.phase = .closing }  // no frame is taken in from now on
        }
        queue.close()
        discardQueue()
        if let box {
            if case .io = error { box.abandon() } else if (try? box.finish()) == nil { box.abandon() }
        } else {
            try? writer.close()
        }
        let cancelled = state.withLock { state -> Bool in
            // Every frame that got in and was not encoded is lost (queued, in x264, in hand).
            state.lost = max(0, queue.counts.accepted - state.statistics.encoded)
            if let box { state.statistics.bytesWritten = box.bytesWritten }
            return state.cancelRequested
        }
        // A file with nothing in it (the encoder could not even start) is removed, as is a
        // cancelled one, and a file already at the path stays as it was; anything written is put
        // in place (when even the rename fails, it stays under its temporary name).
        if cancelled || (box?.bytesWritten ?? 0) == 0 { writer.remove() } else { try? writer.publish() }
        report(error, cancelled: cancelled)
    }

    /// Sends `error` to the render context's error handler and to whoever waits in `stop()`.
    private func report(_ error: ELImageError, cancelled: Bool = false) {
        if let context = state.withLock({ $0.context }) {
            if let node = self.node { context.report(error, from: node) }
        }
        emit(.failed(path: path, error: error))
        end(cancelled: cancelled, outcome: .failure(error))
    }

    /// Ends a recording that never got a frame: nothing was written, so the file is removed.
    private func endWithoutFrames(cancelled: Bool) {
        try? writer.close()
        writer.remove()
        end(cancelled: cancelled, outcome: .failure(.invalidState(
            node: "VideoEncoder",
            reason: cancelled ? "the recording to \(path) was cancelled"
                : "no frame arrived between start and stop, so nothing was recorded to \(path) (a file already there is left as it was)")))
    }

    /// Releases the frames still queued, counting them as dropped.
    private func discardQueue() {
        let left = queue.drain()
        let frames = left.reduce(0) { count, message in
            if case .frame = message { return count + 1 }
            return count
        }
        if frames > 0 { state.withLock { $0.lost += frames } }
    }

    /// Records how the recording ended (the encoder thread's last act, when it ran).
    private func end(cancelled: Bool, outcome: Result<RecordingSummary, ELImageError>) {
        if cancelled { emit(.cancelled(path: path)) }
        audio?.source.stop()
        state.withLock { $0.phase = .ended }
        result.record(outcome)
    }

    /// The statistics with the frame counts derived from the queue's counters (kept under its
    /// lock, so they agree with what the encoder thread saw): once the recording has ended,
    /// `framesIn == encoded + dropped`.
    private static func counted(_ state: State, queue: EncoderQueue<Message>) -> RecordingStatistics {
        let counts = queue.counts
        var statistics = state.statistics
        statistics.framesIn = counts.accepted + counts.rejected + state.conversionFailures
        statistics.droppedQueueFull = counts.rejected
        statistics.dropped = counts.rejected + state.conversionFailures + state.lost
        statistics.queueHighWater = counts.highWater
        return statistics
    }

    /// Holds a frame's planes until the encoder thread takes them, so they are released right
    /// after the readback rather than when the message goes out of scope.
    final class FrameHandoff: @unchecked Sendable {
        // @unchecked Sendable: made on the render thread, then touched by the encoder thread only.
        private var pending: PendingReadback?
        init(_ pending: PendingReadback) { self.pending = pending }
        func take() -> PendingReadback? {
            defer { pending = nil }
            return pending
        }
    }

    // MARK: Time arithmetic

    /// A time base for frames stamped like `time`: its own timescale when it is fine enough (file
    /// timestamps stay exact), 90 kHz when that holds it exactly, else a multiple of at least 10 kHz.
    static func timescale(for time: MediaTime) -> Int32 {
        let scale = time.timescale
        if scale >= 1000 { return scale }
        if 90_000 % scale == 0 { return 90_000 }
        var multiple = scale
        while multiple < 10_000 { multiple *= 2 }
        return multiple
    }

    static func ticks(_ duration: Duration, timescale: Int32) -> Int64 {
        Int64((seconds(duration) * Double(timescale)).rounded())
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func duration(ticks: Int64, timescale: Int32) -> Duration {
        let scale = Int64(timescale)
        return .seconds(ticks / scale) + .nanoseconds((ticks % scale) * 1_000_000_000 / scale)
    }

    static func failure(_ error: Error, frame: Int?, path: String) -> ELImageError {
        guard let error = error as? ELImageError else {
            return .malformedMedia(file: path, frame: frame, reason: "\(error)")
        }
        if let frame, case let .invalidState(_, reason) = error {
            return .malformedMedia(file: path, frame: frame, reason: reason)
        }
        return error
    }
}
