import ELImage
import Foundation

/// One recording: from `VideoEncoder.start` to its end (stop, limit, end of stream, failure or
/// cancel). What is specific to recording lives here: pause and resume, the timestamps, the
/// limits, the statistics, the events and the audio timeline. The frames travel through a
/// `ReadbackSink` writing with an `H264FrameWriter`.
///
/// Events go one way, to `emit`, given at construction (on the encoder thread, or on the thread
/// that ends a recording without frames); failures are the render context's `.failed` events
/// through the sink. The session holds nothing of its node.
final class RecordingSession: Sendable {
    enum Phase: Equatable {
        case recording
        case paused
        /// A finish or cancel is on its way to the encoder thread.
        case closing
        case ended
    }

    /// The render thread's bookkeeping and what the encoder thread reports.
    private struct SessionState {
        var phase = Phase.recording
        var cancelRequested = false
        var stopReason = RecordingStopReason.requested
        /// The counters the writer reports (packets encoded, bytes, fragments, audio) and the
        /// recorded duration; the frame counts come from the sink (`counted`).
        var statistics = RecordingStatistics()
        var colorSpace: ColorSpace?
        /// Where the recording's chroma sits: the settings' or the first frame's, fixed then.
        var chromaLocation: ChromaLocation?
        var timescale: Int32?
        var origin: Int64?
        var offset: Int64 = 0
        var lastPTS: Int64?
        var lastStep: Int64?
        var resumePending = false
        var firstFrameWallTime: ContinuousClock.Instant?
        /// The wall-clock time (UTC) the first frame arrived: the recording's `startDate`.
        var startDate: Date?
        var endWallTime: ContinuousClock.Instant?
        var size: (width: Int, height: Int)?
        /// The timeline the audio track is mapped with (origin, pauses).
        var timeline = AudioTimeline()
        /// Opens the sound of the first frame's source (`RecordingSound.fromSource`), on the
        /// encoder thread.
        var openSourceSound: (@Sendable () throws -> (any AudioTrackSource)?)?
        /// The sound track being recorded, stopped when the recording ends.
        var audio: (any AudioTrackSource)?
        /// The recording's files in place, oldest first (one, or a segmented recording's: loop
        /// recording removes some).
        var files: [String] = []
        var outcome: Result<RecordingSummary, ELImageError>?
    }

    /// The file, or a segmented recording's pattern.
    let path: String
    let settings: EncoderSettings
    let limits: RecordingLimits
    private let isSegmented: Bool
    /// Whether the first frame's source's sound is to be kept (`.fromSource` into MP4 or a stream).
    private let keepsSourceSound: Bool
    /// A live stream rather than files.
    private let isStream: Bool
    private let state: Locked<SessionState>
    private let sink: ReadbackSink

    /// Whether the render thread reads the frames back (`ReadbackPlacement.renderThread`).
    var readsBackOnRenderThread: Bool { sink.readsBackOnRenderThread }

    /// The pre-record trigger, when the recording waits for one.
    let trigger: RecordingTrigger?

    /// - Parameters:
    ///   - preRecord: keeps this much recording time encoded in memory and writes nothing until
    ///     `pullTrigger()`; the file then starts that long before the trigger.
    ///   - emit: hears the recording's events; it must not wait for the render thread.
    init(destination: RecordingDestination, container: ContainerFormat, limits: RecordingLimits, settings: EncoderSettings,
         sound: RecordingSound = .off, preRecord: Duration? = nil, emit: @escaping @Sendable (RecordingEvent) -> Void) {
        let path = destination.path
        let state = Locked(SessionState())
        self.path = path
        let isSegmented = if case .segments = destination { true } else { false }
        self.isSegmented = isSegmented
        self.limits = limits
        self.settings = settings
        let stream: (target: StreamTarget, options: LiveStreamOptions)? = if case let .stream(target, options) = destination {
            (target, options)
        } else { nil }
        isStream = stream != nil
        keepsSourceSound = if case .fromSource = sound, case .mp4 = container { true }
            else if case .fromSource = sound, stream != nil { true } else { false }
        self.state = state
        let configuration = ReadbackSink.Configuration(
            path: path, threadName: "encoder", format: settings.pixelFormat, chromaLocation: settings.chromaLocation,
            chromaDownsampling: settings.chromaDownsampling, capacity: settings.queueCapacity,
            // A live stream never slows the graph: a frame the encoder has no room for is dropped.
            whenQueueFull: stream == nil ? settings.whenQueueFull : .drop)
        let frameDuration = Self.nominalStep(settings)
        let trigger = preRecord.map { RecordingTrigger(window: $0) }
        self.trigger = trigger
        sink = ReadbackSink(configuration, open: { picture in
            let (colorSpace, timescale, start) = state.withLock {
                ($0.colorSpace ?? .bt709, $0.timescale ?? 90_000, $0.startDate ?? Date())
            }
            let wallClock = RecordingWallClock(start: start, timescale: timescale, timeline: { state.withLock { $0.timeline } })
            // The planes hold the recording's siting (fixed at its first frame): x264's VUI and the
            // container say so.
            let source = try Self.openSound(sound, state: state)
            let audio = source.map { RecordingAudio(source: $0, timeline: { state.withLock { $0.timeline } }) }
            if let stream {
                let writer = try StreamFrameWriter(
                    target: stream.target, options: stream.options, settings: settings, width: picture.width, height: picture.height,
                    colorSpace: colorSpace, chromaLocation: picture.chromaLocation, timescale: timescale,
                    frameDuration: frameDuration(timescale), audio: audio) { progress in
                        state.withLock { state in
                            if let audio = progress.audio { state.statistics.audio = audio }
                            state.statistics.encoded += progress.packets
                            state.statistics.bytesWritten = max(state.statistics.bytesWritten, progress.bytesWritten)
                            state.statistics.stream = progress.stream
                        }
                    }
                emit(.started(path: path, width: picture.width, height: picture.height))
                return writer
            }
            let writer = try H264FrameWriter(
                destination: destination, container: container, settings: settings, width: picture.width, height: picture.height,
                colorSpace: colorSpace, chromaLocation: picture.chromaLocation, timescale: timescale,
                frameDuration: frameDuration(timescale),
                audio: audio, wallClock: wallClock, maximumBytes: limits.maximumBytes, trigger: trigger) { progress in
                    state.withLock { state in
                        if let audio = progress.audio { state.statistics.audio = audio }
                        state.statistics.preRecordDiscarded += progress.preRecordDiscarded
                        state.statistics.preRecordPeakBytes = max(state.statistics.preRecordPeakBytes, progress.preRecordPeakBytes)
                        state.statistics.encoded += progress.packets
                        // (A file's report carries no byte count: the count only grows.)
                        state.statistics.bytesWritten = max(state.statistics.bytesWritten, progress.bytesWritten)
                        state.statistics.fragmentsWritten += progress.fragments.count
                        for report in progress.segments {
                            switch report {
                            case .finished(let segment): state.files.append(segment.path)
                            case .deleted(let file): state.files.removeAll { $0 == file }
                            }
                        }
                    }
                    progress.fragments.forEach { emit(.fragmentWritten($0)) }
                    for report in progress.segments where isSegmented {
                        switch report {
                        case .finished(let segment): emit(.segmentFinished(segment))
                        case .deleted(let file): emit(.segmentDeleted(path: file))
                        }
                    }
                }
            emit(.started(path: path, width: picture.width, height: picture.height))
            return writer
        }, unused: {
            guard case .file(let file) = destination else { return }
            try? file.close()
            file.remove()
        }, onEnd: { result, counts in
            let (outcome, cancelled) = state.withLock { state in
                state.endWallTime = .now
                var outcome = Self.outcome(of: result, state: state, counts: counts, path: path, segmented: isSegmented,
                                           streamed: stream != nil)
                if case .success = outcome, let trigger, !trigger.isPulled {
                    outcome = .failure(.invalidState(
                        node: "VideoEncoder",
                        reason: "the recording to \(path) waited for its trigger, which never came: nothing was written (call trigger() to keep the pre-recorded frames)"))
                }
                state.statistics = Self.counted(state, counts)
                let cancelledRun = if case .success(.cancelled) = result { true } else { false }
                return (outcome, state.cancelRequested || cancelledRun)
            }
            switch outcome {
            case let .success(summary): emit(.finished(summary))
            case .failure: break  // thrown by finish(); a failure the sink found is the context's .failed event
            }
            if cancelled { emit(.discarded(path: path)) }
            // The track given (also when no frame came), or the one opened for the source's sound.
            if case .track(let track) = sound { track.recordingEnded() } else { state.withLock { $0.audio }?.recordingEnded() }
            state.withLock { state in
                state.outcome = outcome
                state.phase = .ended
            }
        })
    }

    var phase: Phase {
        let phase = state.withLock { $0.phase }
        // A run that failed on its own is closing before it has ended.
        if phase == .recording || phase == .paused, sink.isClosing { return .closing }
        return phase
    }

    var statistics: RecordingStatistics {
        let counts = sink.counts
        return state.withLock { Self.counted($0, counts) }
    }

    // MARK: Control (any thread)

    func pause() {
        state.withLock { state in
            if state.phase == .recording { state.phase = .paused }
        }
    }

    /// Pulls the pre-record trigger at the time of the next frame (one step after the last one
    /// taken): the file starts the pre-record window before it. Returns the recording time the
    /// file starts at; nil without a trigger or when it was pulled already.
    func pullTrigger() -> Duration? {
        guard let trigger else { return nil }
        let (time, timescale) = state.withLock { state -> (Int64, Int32) in
            let timescale = state.timescale ?? settings.timescale ?? 90_000
            guard let last = state.lastPTS else { return (0, timescale) }
            return (last + (state.lastStep ?? Self.nominalStep(settings)(timescale)), timescale)
        }
        guard trigger.pull(at: time, timescale: timescale), let start = trigger.fileStart else { return nil }
        return Self.duration(ticks: max(0, start), timescale: timescale)
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
        let open = state.withLock { state -> Bool in
            guard state.phase == .recording || state.phase == .paused else { return false }
            state.phase = .closing
            state.stopReason = reason
            return true
        }
        if open { sink.requestFinish() }
    }

    /// Asks the encoder thread to stop at once: the frames still queued are let go, the file is
    /// completed with the frames encoded.
    func requestStop() {
        let running = state.withLock { state -> Bool in
            switch state.phase {
            case .recording, .paused:
                state.phase = .closing
                state.stopReason = .requested
                return true
            case .closing: return true
            case .ended: return false
            }
        }
        if running { sink.requestStop() }
    }

    /// Asks the encoder thread to stop at once and remove the file.
    func requestCancel() {
        state.withLock { state in
            state.cancelRequested = true
            if state.phase == .recording || state.phase == .paused { state.phase = .closing }
        }
        sink.requestCancel()
    }

    /// Waits until the recording has ended and its encoder thread is joined, and returns how.
    func outcome() async -> Result<RecordingSummary, ELImageError> {
        _ = await sink.outcome()
        return state.withLock { $0.outcome } ?? .failure(.invalidState(
            node: "VideoEncoder", reason: "the recording to \(path) ended without an outcome"))
    }

    // MARK: Render thread

    /// Takes a frame into the recording: stamps it and hands it to the sink. Returns true when
    /// this frame started the encoder thread (the node registers with `context` then).
    func take(_ frame: any PackablePicture, owner: AnyObject, in context: isolated RenderContext) throws -> Bool {
        enum Decision {
            case skip
            case limit
            case queue(pts: Int64, colorSpace: ColorSpace, chromaLocation: ChromaLocation)
        }
        let decision = state.withLock { state -> Decision in
            guard state.phase == .recording else { return .skip }
            let colorSpace = state.colorSpace ?? settings.colorSpace ?? frame.colorSpace
            let chromaLocation = state.chromaLocation ?? settings.chromaLocation ?? frame.chromaLocation
            let timescale = state.timescale ?? settings.timescale ?? Self.timescale(for: frame.timestamp)
            if state.colorSpace == nil {
                state.colorSpace = colorSpace
                state.chromaLocation = chromaLocation
                state.timescale = timescale
                state.size = (frame.width, frame.height)
                state.firstFrameWallTime = .now
                state.startDate = Date()
                state.timeline.timescale = timescale
                if keepsSourceSound {
                    let source = FrameOrigin.current?.source as? any SoundCarryingSource
                    state.openSourceSound = source?.sound(fitting: isStream ? .stream : .mp4)
                }
            }
            let pts = stamp(frame.timestamp, timescale: timescale, state: &state)
            if let maximum = limits.maximumDuration, pts >= Self.ticks(maximum, timescale: timescale) {
                state.phase = .closing
                state.stopReason = .durationLimit
                return .limit
            }
            state.lastPTS = pts
            state.statistics.recordedDuration = Self.duration(
                ticks: pts + (state.lastStep ?? Self.nominalStep(settings)(timescale)), timescale: timescale)
            return .queue(pts: pts, colorSpace: colorSpace, chromaLocation: chromaLocation)
        }
        switch decision {
        case .skip:
            return false
        case .limit:
            sink.requestFinish()
            return false
        case let .queue(pts, colorSpace, chromaLocation):
            return try sink.take(frame, time: pts, colorSpace: colorSpace, chromaLocation: chromaLocation,
                                 owner: owner, in: context)
        }
    }

    /// The frame's presentation time in ticks from the recording's start: pauses removed, never
    /// going back.
    private func stamp(_ time: MediaTime, timescale: Int32, state: inout SessionState) -> Int64 {
        let absolute = MediaTimeMath.ticks(time, timescale: timescale)
        let origin = state.origin ?? absolute
        state.origin = origin
        state.timeline.origin = origin
        var pts = absolute - origin - state.offset
        if let last = state.lastPTS {
            let step = state.lastStep ?? Self.nominalStep(settings)(timescale)
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

    /// One frame at the settings' nominal rate, in ticks of a timescale.
    private static func nominalStep(_ settings: EncoderSettings) -> @Sendable (Int32) -> Int64 {
        let rate = settings.frameRate
        return { timescale in max(1, Int64(timescale) * Int64(rate.denominator) / Int64(rate.numerator)) }
    }

    /// The sound track of the recording, opened at its first frame on the encoder thread and
    /// kept in `state` to be stopped at the end: the track given, or the first frame's source's.
    private static func openSound(_ sound: RecordingSound, state: Locked<SessionState>) throws -> (any AudioTrackSource)? {
        let track: (any AudioTrackSource)?
        switch sound {
        case .off: track = nil
        case .track(let given): track = given
        case .fromSource: track = try state.withLock { $0.openSourceSound }?()
        }
        state.withLock { $0.audio = track }
        return track
    }

    // MARK: Outcome and statistics

    /// How the recording ended, from how its sink's run did.
    private static func outcome(of result: Result<ReadbackSink.Ending, ELImageError>, state: SessionState,
                                counts: ReadbackSink.Counts, path: String, segmented: Bool,
                                streamed: Bool) -> Result<RecordingSummary, ELImageError> {
        let cancelled = ELImageError.invalidState(node: "VideoEncoder", reason: "the recording to \(path) was cancelled")
        switch result {
        case .success(.finished), .success(.full):
            let reason = if case .success(.full) = result { RecordingStopReason.sizeLimit } else { state.stopReason }
            // A pre-record's file is named when it starts; a segmented recording keeps its pattern.
            let named = segmented ? path : state.files.last ?? path
            return .success(RecordingSummary(path: named, reason: reason, statistics: counted(state, counts),
                                             width: state.size?.width ?? 0, height: state.size?.height ?? 0,
                                             colorSpace: state.colorSpace ?? .bt709, timescale: state.timescale ?? 0,
                                             startDate: state.startDate ?? Date(timeIntervalSince1970: 0),
                                             files: state.files.isEmpty && !segmented && !streamed ? [path] : state.files))
        case .success(.cancelled):
            return .failure(cancelled)
        case .success(.empty):
            return .failure(state.cancelRequested ? cancelled : .invalidState(
                node: "VideoEncoder",
                reason: "no frame arrived between start and stop, so nothing was recorded to \(path) (a file already there is left as it was)"))
        case let .failure(error):
            return .failure(error)
        }
    }

    /// The statistics with the frame counts from the sink: once the recording has ended,
    /// `framesIn == encoded + dropped + preRecordDiscarded` (every frame that got in and was
    /// neither written nor let go by the pre-record buffer is lost).
    private static func counted(_ state: SessionState, _ counts: ReadbackSink.Counts) -> RecordingStatistics {
        var statistics = state.statistics
        let lost = counts.ended ? max(0, counts.accepted - statistics.encoded - statistics.preRecordDiscarded) : 0
        statistics.framesIn = counts.accepted + counts.rejected + counts.conversionFailures
        statistics.droppedQueueFull = counts.rejected + counts.replaced
        statistics.dropped = counts.rejected + counts.conversionFailures + lost
        statistics.queueHighWater = counts.highWater
        statistics.readbackTime = counts.readbackTime
        statistics.encodeTime = counts.writeTime
        if let start = state.firstFrameWallTime, statistics.encoded > 0 {
            let seconds = Self.seconds((state.endWallTime ?? .now) - start)
            if seconds > 0 { statistics.achievedFramesPerSecond = Double(statistics.encoded) / seconds }
        }
        return statistics
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
}
