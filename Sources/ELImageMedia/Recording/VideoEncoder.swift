import ELImage
import Foundation

/// A sink that records the frames it receives as H.264 (libx264) into a fragmented MP4 or a raw
/// `.h264` stream, while the graph runs.
///
/// ```swift
/// let encoder = try VideoEncoder(settings: settings)
/// camera --> beauty --> encoder
/// try encoder.start(recordingTo: "clip.mp4")
/// ...
/// encoder.pause(); encoder.resume()          // no gap in the timestamps
/// let summary = try await encoder.finish()   // the file is complete
/// ```
///
/// **Ending.** `finish()` encodes the frames already taken in and completes the file; `close()`
/// stops at once, dropping the frames still queued, and completes the file with those encoded;
/// `discard()` throws the recording away (stops and removes the file). End-of-stream finishes by itself
/// (`EncoderSettings.finishesAtEndOfStream`), as do the limits. Every end is a `.sinkFinished`
/// event on the render context's stream.
///
/// **Threads.** On the render thread, `receive` converts each RGBA frame to I420 on the GPU
/// (`packPlanes`, with the matrix and range of `EncoderSettings.colorSpace`), inserts a fence and
/// queues the planes: it never waits for the GPU or the encoder. The encoder thread has its own
/// EGL context shared with the render context; it waits for the fence, reads the planes into a
/// reused buffer, releases them and encodes with x264, then muxes. The queue is bounded: when it
/// is full the render thread waits (`.wait`, file sources: the graph is paced by the encoder) or
/// the frame is dropped and counted (`.drop`, live sources). Nothing is dropped silently.
///
/// **Chroma siting.** The recording keeps its source's: the planes are packed at the first
/// frame's siting (centred for a C420jpeg Y4M, a JPEG or an MJPEG camera, a movie's own, MPEG-2
/// "left" for frames made from RGB), or at `EncoderSettings.chromaLocation` when set, fixed for the
/// whole recording and tagged in the H.264 VUI and the container.
///
/// **Timestamps.** Presentation times come from the frames' timestamps, from zero at the first
/// frame: variable frame rates are kept. A pause removes its time (the first frame after it
/// follows the last one before by one frame duration); a source going back in time is treated the
/// same way, so timestamps always increase.
///
/// **Sound.** A recording into MP4 keeps the sound of the source whose frame starts it (a movie's
/// audio track, `RecordingSound.fromSource`) unless told otherwise (`audio: .off`, or a track of
/// your own): the encoder thread pulls its packets as it muxes the video, on the frames' clock
/// from the first frame, a pause cut from both, and cuts it where the video ends. Each recording
/// opens the sound anew, so two encoders fed by one movie both keep it.
///
/// **Segments.** With `RecordingSegments` a recording is split into files of a duration or size
/// (`start(recordingTo:segments:)`), each starting with a keyframe and its own times from zero, its
/// sound continuing where the last one's stopped; loop recording keeps the newest few.
///
/// **Pre-record.** With `preRecord`, a recording keeps the last seconds encoded in memory (as
/// keyframes) and writes nothing until `trigger()` (a key, a signal, motion): the file starts
/// that long before the trigger, to the frame, with its sound.
///
/// **Failures.** A full disk, an unwritable file or an encoder error ends the recording: the
/// error is a `.failed` event on the render context's stream (and is thrown by `finish()`), the
/// fragments already flushed stay playable, and the rest of the graph keeps running.
public final class VideoEncoder: ImageInput, PackingSink, FinishableNode, Sendable, PlanDescribing {

    public let inputSlots = InputSlots(count: 1)
    /// How frames are encoded.
    public let settings: EncoderSettings

    /// Where the encoder stands.
    public enum State: Sendable, Equatable {
        /// No recording (none started, or the last one ended).
        case idle
        /// Pre-recording: frames go into memory until `trigger()`.
        case waitingForTrigger
        case recording
        case paused
        /// Stopping: the encoder is writing the last frames and closing the file.
        case finishing
    }

    /// The current (or last) recording.
    private let recording = Locked<RecordingSession?>(nil)
    private var session: RecordingSession? { recording.withLock { $0 } }
    /// Where each recording tells its `RecordingEvent`s: the context of the encoder's frames
    /// (passed down to each recording, which holds nothing of this node).
    private let messenger = NodeMessenger()

    /// - Throws: `ELImageError.invalidInput` for settings x264 cannot use (a CRF outside 0...51,
    ///   an unknown tune or level, B-frames with the baseline profile, ...).
    public init(settings: EncoderSettings = EncoderSettings()) throws {
        if let problem = settings.problem {
            throw ELImageError.invalidInput(what: "the encoder settings do not work: \(problem)",
                                            hint: "fix the EncoderSettings; see their documentation for the ranges")
        }
        try X264Encoder.validate(settings: settings)
        self.settings = settings
    }

    /// The safety net for an encoder released while recording: the encoder thread finishes the
    /// file in the background (never waited for here). Call `finish()` or the context's `close()`.
    deinit {
        session?.requestFinish(.requested)
    }

    // MARK: Recording control (any thread)

    /// Starts recording to `path`; the next frame is the first one. The file is written as
    /// `PATH.partial` and renamed onto `path` when the recording ends with frames in it, so a file
    /// already at `path` survives a recording that fails before its first frame (see
    /// `StagedOutputFile`); a crashed recording is left, playable, as `PATH.partial`.
    ///
    /// - Parameters:
    ///   - path: the file to write (`.mp4`, or `.h264`/`.264` for a raw stream).
    ///   - container: `nil` picks from the extension: `.h264`/`.264` raw Annex B, else
    ///     fragmented MP4 with 1 s fragments.
    ///   - limits: a duration or size at which the recording ends by itself (the whole
    ///     recording's, with segments).
    ///   - segments: splits the recording into files of a duration or size, each starting with a
    ///     keyframe; `path` is then a pattern (`cam-%Y%m%d-%H%M%S.mp4`, or a name that gets each
    ///     file's number), and the files are created as their first frames are encoded (see
    ///     `RecordingSegments`).
    ///   - preRecord: pre-record: frames are encoded into memory (the last `preRecord` of them,
    ///     with their sound) and nothing is written, nor the file created, until `trigger()`; the
    ///     file then starts `preRecord` before the trigger, to the frame, and goes on. While it
    ///     waits every frame is encoded as a keyframe (so the file can start at any of them): the
    ///     pre-recorded seconds take more bytes than the rest, and more memory than inter frames
    ///     would (`RecordingStatistics.preRecordPeakBytes`). A recording finished without a
    ///     trigger writes nothing. `path` may then be a time pattern, as segments' are
    ///     (`video-%Y%m%d-%H%M%S.mp4`): expanded at the file's first frame.
    ///   - audio: the sound recorded beside the frames on their clock (MP4 only), cut where the
    ///     video ends. By default the sound of the source whose frame starts the recording: a
    ///     movie keeps its audio track (`MovieInput.sound`); `.off` records none; `.track(…)` a
    ///     microphone's (`PulseAudioCapture`) or another file's.
    /// - Throws: `ELImageError.io` when the file (or a segment's folder) cannot be created (with
    ///   `errno`: a missing folder, no permission, a read-only file system);
    ///   `ELImageError.invalidState` while a recording is running; `ELImageError.invalidInput` for
    ///   a `.track` with a raw `.h264` stream, or segments that cannot work (a pattern with a
    ///   conversion that is not a date or time, a length of zero).
    public func start(recordingTo path: String, container: ContainerFormat? = nil, limits: RecordingLimits = .none,
                      segments: RecordingSegments? = nil, preRecord: Duration? = nil,
                      audio: RecordingSound = .fromSource) throws {
        try checkIdle(for: path)
        let container = container ?? .forPath(path)
        try Self.check(audio, fitsIn: container, path: path)
        if let preRecord, preRecord <= .zero {
            throw ELImageError.invalidInput(what: "a pre-record of \(preRecord) for \(path)",
                                            hint: "give a positive duration, e.g. .seconds(5), or none")
        }
        guard let segments else {
            // A pre-record writes nothing until its trigger: its file is created then.
            if preRecord != nil { try Self.checkWritableFolder(of: path, for: "write a pre-recorded file in the folder of") }
            let destination: RecordingDestination = preRecord == nil
                ? .file(try POSIXFileWriter(path: path)) : .deferredFile(try SegmentFileNames(pattern: path))
            try start(destination, container: container, limits: limits, preRecord: preRecord, audio: audio)
            return
        }
        if let problem = segments.problem {
            throw ELImageError.invalidInput(what: "the segments of \(path) do not work: \(problem)",
                                            hint: "give a positive duration or a size of at least 16 KiB, and keep at least one file")
        }
        let names = try SegmentFileNames(pattern: path)
        try Self.checkWritableFolder(of: path, for: "create segments in the folder of")
        try start(.segments(names, segments), container: container, limits: limits, preRecord: preRecord, audio: audio)
    }

    /// Starts recording into `writer` (e.g. a writer of your own, or one that fails on purpose in a
    /// test), with `audio` as in `start(recordingTo:container:limits:audio:)`.
    /// - Throws: `ELImageError.invalidState` while a recording is running.
    public func start(writingTo writer: any MediaFileWriter, container: ContainerFormat, limits: RecordingLimits = .none,
                      audio: RecordingSound = .fromSource) throws {
        try Self.check(audio, fitsIn: container, path: writer.path)
        try start(.file(writer), container: container, limits: limits, preRecord: nil, audio: audio)
    }

    /// Starts a live stream to `target` (`rtmp://`, `rtmps://`, `srt://`, or an HLS playlist
    /// `DIR/index.m3u8`); the next frame is the first one. Returns at once: the connection is made
    /// on the stream's own thread, and a server that cannot be reached ends the stream with a
    /// `.failed` event (and the error from `finish()`).
    ///
    /// A stream never slows the graph: frames the encoder cannot take are dropped, and when the
    /// link is slower than the stream, whole groups of pictures are dropped from its queue
    /// (`LiveStreamOptions.maximumDelay`), all counted in `RecordingStatistics.stream`. A server
    /// that goes away is reconnected to for `LiveStreamOptions.reconnectWindow`; put a second
    /// encoder recording a file beside it to keep every frame. `finish()` sends what is queued and
    /// closes the stream (the RTMP stream is unpublished, the HLS playlist gets its end).
    ///
    /// For live encoding, set `EncoderSettings.tune = "zerolatency"`, `.bitrate` with a maximum
    /// and a buffer (constant bit rate), and a keyframe interval of one or two seconds of frames.
    ///
    /// ```swift
    /// var settings = EncoderSettings()
    /// settings.tune = "zerolatency"
    /// settings.rateControl = .bitrate(kilobitsPerSecond: 2500, maximumKilobitsPerSecond: 2500, bufferKilobits: 5000)
    /// settings.keyframeInterval = 60
    /// let stream = try VideoEncoder(settings: settings)
    /// camera --> beauty --> stream
    /// try stream.start(streamingTo: StreamTarget("rtmp://live.example.com/app/KEY")!, audio: .track(microphone))
    /// ```
    ///
    /// - Parameters:
    ///   - target: where the stream goes: an RTMP server, an SRT listener or an HLS playlist.
    ///   - options: how the stream behaves when the link is slow or goes away, and how HLS is cut.
    ///   - audio: the sound streamed beside the frames: by default a movie source's (as AAC),
    ///     `.track` a microphone's (`PulseAudioCapture` with AAC), `.off` none.
    /// - Throws: `ELImageError.invalidInput` for options that cannot work or a track that is not
    ///   AAC; `ELImageError.io` when an HLS playlist's folder cannot be written;
    ///   `ELImageError.invalidState` while a recording or stream is running.
    public func start(streamingTo target: StreamTarget, options: LiveStreamOptions = LiveStreamOptions(),
                      audio: RecordingSound = .fromSource) throws {
        try checkIdle(for: target.description)
        if let problem = options.problem {
            throw ELImageError.invalidInput(what: "the live stream options for \(target) do not work: \(problem)",
                                            hint: "fix the LiveStreamOptions; see their documentation")
        }
        if case .track(let track) = audio, track.format.codecName != "aac" {
            throw ELImageError.invalidInput(
                what: "a live stream to \(target) carries AAC sound, and the track given is \(track.format.codecName)",
                hint: "capture with AudioCodec.aac (PulseAudioCapture's default), or stream without sound")
        }
        if case .hls = target.kind { try Self.checkWritableFolder(of: target.url, for: "write an HLS playlist in the folder of") }
        try start(.stream(target, options), container: .mp4(), limits: .none, preRecord: nil, audio: audio)
    }

    private func start(_ destination: RecordingDestination, container: ContainerFormat, limits: RecordingLimits,
                       preRecord: Duration?, audio: RecordingSound) throws {
        let messenger = messenger
        let session = RecordingSession(destination: destination, container: container, limits: limits, settings: settings,
                                       sound: audio, preRecord: preRecord) { event in messenger.publish(event) }
        try recording.withLock { current in
            if let current, current.phase == .recording || current.phase == .paused {
                throw ELImageError.invalidState(
                    node: "VideoEncoder",
                    reason: "a recording to \(current.path) is running; finish() or close() it before starting \(destination.path)")
            }
            current = session
        }
    }

    /// Starts writing a recording that pre-records (`start(recordingTo:preRecord:)`): its file
    /// begins the pre-record time before the next frame, and the recording goes on. Any thread;
    /// a second call, or one without a pre-record, does nothing.
    /// - Returns: the recording time the file starts at (from the first frame the encoder took),
    ///   or nil when this call started nothing.
    @discardableResult
    public func trigger() -> Duration? { session?.pullTrigger() }

    /// Stops taking frames and keeps the time until `resume()` out of the recording.
    public func pause() { session?.pause() }

    /// Takes frames again after `pause()`; the next frame follows the last one before the pause.
    public func resume() { session?.resume() }

    /// Finishes the recording: the frames already taken in are encoded, the file is completed
    /// and closed. Returns once it is. After a recording ended by itself (a limit, end of stream,
    /// a failure), returns how it ended without waiting. The render context's `close()` calls it.
    /// - Throws: the error that ended the recording (`ELImageError.io` for a full disk, ...: the
    ///   same failure the context's events reported); `ELImageError.invalidState` when nothing was
    ///   recorded (no frame arrived: the empty file is removed) or no recording was started.
    @discardableResult
    public func finish() async throws -> RecordingSummary {
        guard let session else {
            throw ELImageError.invalidState(node: "VideoEncoder", reason: "finish() was called, but no recording was started")
        }
        session.requestFinish(.requested)
        return try await session.outcome().get()
    }

    /// Stops the recording at once: the frames still queued are dropped (counted in the
    /// statistics), the file is completed with the frames encoded; returns once it is and the
    /// encoder thread has ended. Idempotent; a failure is a `.failed` event.
    public func close() async {
        guard let session else { return }
        session.requestStop()
        _ = await session.outcome()
    }

    /// Throws the recording away: stops it at once (as `close()`) and removes its file. Not a way
    /// to end a recording that should be kept (that is `finish()` or `close()`). Returns once the
    /// file is gone; a `.discarded` event says so.
    public func discard() async {
        guard let session else { return }
        session.requestCancel()
        _ = await session.outcome()
    }

    /// Where the encoder stands.
    public var currentState: State {
        switch session?.phase {
        case .recording? where session?.trigger?.isPulled == false: .waitingForTrigger
        case .recording?: .recording
        case .paused?: .paused
        case .closing?: .finishing
        case .ended?, nil: .idle
        }
    }

    /// The counters of the current recording (or the last one).
    public var statistics: RecordingStatistics {
        session?.statistics ?? RecordingStatistics()
    }

    // MARK: ImageInput (render thread)

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard session != nil else { return }
        guard frame.format.holdsPicture else {
            throw ELImageError.invalidInput(what: "VideoEncoder got a \(frame.format) frame",
                                            hint: "connect it after a node that outputs RGBA")
        }
        try receive(frame as any PackablePicture, in: context)
    }

    package var packing: (format: PixelFormat, chromaDownsampling: ChromaDownsampling)? {
        (settings.pixelFormat, settings.chromaDownsampling)
    }

    /// The settings' siting, or the first picture's (fixed for the recording).
    package var packingChromaLocation: ChromaLocation? { settings.chromaLocation }

    package var planSummary: String {
        if session?.readsBackOnRenderThread == true {
            return "packs I420 (\(settings.chromaDownsampling) chroma) and reads it back on the render thread (one GL context); "
                + "encodes (x264 \(settings.preset)) and muxes on ELImage.encoder"
        }
        return "packs I420 (\(settings.chromaDownsampling) chroma) on the render thread; reads back, encodes (x264 \(settings.preset)) "
            + "and muxes on ELImage.encoder"
    }

    /// Takes a picture as it is: a recipe runs inside the pack (`Recipe.packed`).
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        try receive(picture as any PackablePicture, in: context)
    }

    package func receive(_ picture: any PackablePicture, in context: isolated RenderContext) throws {
        guard let session else { return }
        messenger.meet(context, as: self)  // before the encoder thread starts and tells it started
        if try session.take(picture, owner: self, in: context) { context.register(self, stage: .sink) }
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        guard settings.finishesAtEndOfStream else { return }
        session?.requestFinish(.endOfStream)
    }

    private static func check(_ sound: RecordingSound, fitsIn container: ContainerFormat, path: String) throws {
        guard case .track(let audio) = sound else { return }
        if case .annexB = container {
            throw ELImageError.invalidInput(what: "a raw H.264 stream (\(path)) cannot hold sound",
                                            hint: "record to .mp4 to keep the audio, or record without it")
        }
        if !audio.format.fitsInMP4 {
            throw ELImageError.invalidInput(what: "\(audio.format.codecName) audio cannot go into an MP4 file (\(path))",
                                            hint: "give an AAC or Opus track, or record without sound")
        }
    }

    /// A segmented or pre-recording recording creates its files later: the folder they go into
    /// must be writable now.
    /// Fails now, naming `operation`, when the folder of `pattern` cannot take new files (written later).
    private static func checkWritableFolder(of pattern: String, for operation: String) throws {
        let folder = (pattern as NSString).deletingLastPathComponent
        let path = folder.isEmpty ? "." : folder
        guard access(path, W_OK | X_OK) == 0 else {
            let code = errno
            throw ELImageError.io(file: pattern, operation: operation, errno: code,
                                  hint: WriteFailureHint.text(for: code))
        }
    }

    private func checkIdle(for path: String) throws {
        if let current = session, current.phase == .recording || current.phase == .paused {
            throw ELImageError.invalidState(
                node: "VideoEncoder",
                reason: "a recording to \(current.path) is running; finish() or close() it before starting \(path)")
        }
    }
}

extension VideoEncoder: FrameAccounting {
    /// Its hops: the recording (frames taken in, encoded, and why the others were not), then, for
    /// a live stream, the link (frames sent, and those dropped whole groups at a time).
    public var frameHops: [FrameHop] {
        let statistics = statistics
        let recording = FrameHop(
            name: statistics.stream == nil ? "the encoder" : "the stream's encoder",
            framesIn: statistics.framesIn, passedOn: statistics.encoded,
            drops: [
                .init(statistics.droppedQueueFull, "the queue was full"),
                .init(statistics.dropped - statistics.droppedQueueFull, "lost at a failure, a size limit or a failed conversion"),
                .init(statistics.preRecordDiscarded, "let go before the trigger (pre-record)"),
            ])
        guard let stream = statistics.stream else { return [recording] }
        let groups = "\(stream.groupsDropped) group\(stream.groupsDropped == 1 ? "" : "s") of pictures"
        return [recording, FrameHop(name: "the link to \(stream.address)", framesIn: stream.framesQueued, passedOn: stream.framesSent,
                                    drops: [.init(stream.framesDropped, "slower than the stream, or the server away (\(groups))")])]
    }
}
