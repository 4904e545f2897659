import ELImage
import ELImageCamera
import ELImageCommandLine
import ELImageMedia
import Foundation

/// Where `elimage run` writes, chosen by the output's extension (or a stream's address).
enum OutputKind {
    case png(pattern: String)
    case jpeg(pattern: String)
    case y4m(String)
    case rgba(String)
    case video(String)
    /// A file through one of FFmpeg's encoders: WebM, Matroska, animated GIF or WebP.
    case encoded(String, VideoCodec.Container)
    /// A live stream: RTMP, SRT, or an HLS playlist.
    case stream(StreamTarget)
    /// A V4L2 output device (`/dev/videoN`, a v4l2loopback virtual camera).
    case virtualCamera(String)

    init(path: String, hlsSegments: StreamTarget.HLSSegmentType = .mpegts) throws(UsageError) {
        if let target = StreamTarget(path, hlsSegments: hlsSegments) {
            if let problem = target.pathProblem { throw UsageError("-o \(path): \(problem)") }
            self = .stream(target)
            return
        }
        if path.hasPrefix("/dev/video") || path.hasPrefix("/dev/v4l/") {
            self = .virtualCamera(path)
            return
        }
        if path.contains("://") {
            throw UsageError("-o \(AddressRedaction.redact(path)): ELImage streams to rtmp://, rtmps:// and srt:// addresses (and HLS, -o DIR/index.m3u8)")
        }
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "png": self = .png(pattern: path)
        case "jpg", "jpeg": self = .jpeg(pattern: path)
        case "y4m": self = .y4m(path)
        case "rgba": self = .rgba(path)
        case "mp4", "mov", "h264", "264": self = .video(path)
        case let name where VideoCodec.Container(extension: name) != nil:
            guard let container = VideoCodec.Container(extension: name) else { throw UsageError("-o \(path): \(Self.supported)") }
            self = .encoded(path, container)
        case "":
            throw UsageError("-o \(path): the file name has no extension, which says what to write; \(Self.supported)")
        case let other:
            throw UsageError("cannot write '.\(other)' files (\(path)); \(Self.supported)")
        }
    }

    /// The extensions an output may have, as advice.
    static let supported = "use .mp4, .mov, .h264, .mkv, .webm, .y4m, .rgba, .png, .jpg, .gif or .webp (e.g. -o out.mp4), "
        + "stream to rtmp://HOST/APP/KEY, srt://HOST:PORT or DIR/index.m3u8, or write to a virtual camera, /dev/videoN"

    /// True for files without timestamps, which have one constant frame rate (.y4m, raw H.264).
    var hasConstantRate: Bool {
        switch self {
        case .y4m: return true
        case .video(let path): if case .annexB = ContainerFormat.forPath(path) { return true } else { return false }
        default: return false
        }
    }

    /// True for live outputs, which take frames at their pace and run until stopped (a stream,
    /// a virtual camera).
    var isLive: Bool {
        switch self {
        case .stream, .virtualCamera: true
        default: false
        }
    }

    /// True when only the first frame is wanted (an image path without a %d pattern).
    var wantsOneFrame: Bool {
        switch self {
        case .png(let pattern), .jpeg(let pattern): return (try? NumberedFileName(pattern))?.isNumbered != true
        default: return false
        }
    }
}

/// The sink node for an output, plus how to finish it.
final class OutputSink: Sendable {
    let node: any ImageInput
    private let finishing: @Sendable () async throws -> Void
    /// Starts a pre-recording recording's file (`--pre-record`): returns where it starts.
    let trigger: (@Sendable () -> Duration?)?

    private init(node: any ImageInput, trigger: (@Sendable () -> Duration?)? = nil,
                 finish: @escaping @Sendable () async throws -> Void) {
        self.node = node
        self.trigger = trigger
        self.finishing = finish
    }

    /// Closes files; call after the last frame.
    func finish() async throws { try await finishing() }

    /// `bitDepth`: 8, or 10 for a C420p10 Y4M or a 16-bit PNG (the encoder takes its own from `settings`).
    static func make(_ kind: OutputKind, frameRate: Y4MHeader.Ratio, bitDepth: Int = 8, encoder settings: EncoderSettings,
                     segments: RecordingSegments? = nil, preRecord: Duration? = nil,
                     audio: RecordingSound = .fromSource, live: LiveStreamOptions = LiveStreamOptions(),
                     virtualCamera: VirtualCameraSettings = VirtualCameraSettings(), codec: VideoCodec? = nil, quality: Double? = nil,
                     events: EventLog, onStreamFailure: @escaping @Sendable () -> Void = {}) throws -> OutputSink {
        switch kind {
        case .virtualCamera(let path):
            let camera = try VirtualCamera(device: path, settings: virtualCamera)
            events.listen(to: camera) { event in
                if let change = event.message(VirtualCameraEvent.self) { Terminal.say("\(path): \(change)") }
            }
            for warning in camera.warnings { Terminal.say("warning: \(warning)") }
            return OutputSink(node: camera, finish: {
                // Said also when the writing failed: what was written before.
                defer { Terminal.say("virtual camera: \(VirtualCameraReport(camera.statistics))") }
                try await camera.finish()
            })
        case .stream(let target):
            let encoder = try VideoEncoder(settings: settings)
            events.listen(to: encoder) { event in
                if case .started? = event.message(RecordingEvent.self) { Terminal.say("streaming to \(target)") }
                if case .failed = event { onStreamFailure() }
            }
            try encoder.start(streamingTo: target, options: live, audio: audio)
            return OutputSink(node: encoder, finish: {
                // Said also when the stream failed: what was sent before.
                defer { if let stream = encoder.statistics.stream { Terminal.say("stream: \(stream)") } }
                let summary = try await encoder.finish()
                if let capture = summary.statistics.audio.capture { Terminal.say("sound: \(capture)") }
            })
        case .video(let path):
            let encoder = try VideoEncoder(settings: settings)
            let deleted = Locked(0)
            events.listen(to: encoder) { event in
                if case .segmentDeleted? = event.message(RecordingEvent.self) { deleted.withLock { $0 += 1 } }
            }
            try encoder.start(recordingTo: path, segments: segments, preRecord: preRecord, audio: audio)
            let trigger: (@Sendable () -> Duration?)? = preRecord == nil ? nil : { @Sendable in encoder.trigger() }
            return OutputSink(node: encoder, trigger: trigger, finish: {
                let summary = try await encoder.finish()
                if let capture = summary.statistics.audio.capture {
                    Terminal.say("sound: \(capture)")
                }
                if preRecord != nil {
                    let statistics = summary.statistics
                    Terminal.say(String(format: "pre-record: at most %.1f MB in memory, %d frames let go before the trigger",
                                        Double(statistics.preRecordPeakBytes) / 1e6, statistics.preRecordDiscarded))
                }
                if segments != nil, let first = summary.files.first, let last = summary.files.last {
                    let removed = deleted.withLock { $0 }
                    let files = summary.files.count == 1 ? first : "\(summary.files.count) files, \(first) ... \(last)"
                    Terminal.say("segments: \(files)\(removed > 0 ? " (\(removed) older deleted)" : "")")
                }
            })
        case .png(let pattern), .jpeg(let pattern):
            // Read back and written on the sink's thread, each file staged and renamed when written.
            let format: ImageSequenceFormat = if case .png = kind { bitDepth > 8 ? .png16 : .png } else { .jpeg(quality: 92) }
            let output = try FileOutput.imageSequence(pattern: pattern, format: format)
            return OutputSink(node: output, finish: { try await output.finish() })
        case .encoded(let path, let container):
            // Read back and encoded on the sink's thread by FFmpeg's encoder, with the sound, staged and renamed at the end.
            let output = try FileOutput.encoded(path: path, codec: codec ?? container.defaultCodec, quality: quality, frameRate: frameRate,
                                                audio: audio)
            return OutputSink(node: output, finish: { try await output.finish() })
        case .rgba(let path):
            // Read back and written on the sink's thread, staged and renamed into place at the end.
            let output = try FileOutput.rawRGBA(path: path)
            return OutputSink(node: output, finish: { try await output.finish() })
        case .y4m(let path):
            // Sited as the input was, with the chroma filter matched to the upload's: a Y4M or movie
            // source is written back with its chroma as it was (no resample to another siting).
            let output = try FileOutput.y4m(path: path, frameRate: frameRate, format: bitDepth > 8 ? .i420p10 : .i420, chromaLocation: nil,
                                            chromaDownsampling: .matched)
            return OutputSink(node: output, finish: { try await output.finish() })
        }
    }
}

/// One run's render context events: the first failure anywhere in the graph, and each output's
/// own events (its failures and messages) handed to what the output asked for.
final class EventLog: Sendable {
    private struct Listener {
        let handle: @Sendable (RenderEvent) -> Void
        let failuresAreNotes: Bool
    }

    private let first = Locked<String?>(nil)
    private let listeners = Locked<[NodeReference: Listener]>([:])

    /// Hands the events about `node` (its failures, its `NodeMessage`s) to `handle`, on the task
    /// that reads the events. `failuresAreNotes`: the node's failures do not fail the run (a
    /// microphone that vanished ends the sound, the video goes on).
    func listen(to node: AnyObject, failuresAreNotes: Bool = false, _ handle: @escaping @Sendable (RenderEvent) -> Void) {
        listeners.withLock { $0[NodeReference(node)] = Listener(handle: handle, failuresAreNotes: failuresAreNotes) }
    }

    /// Records the failures among `events` and hands each listened node its events, until they
    /// end (when the context closes).
    func record(_ events: RenderEvents) async {
        for await event in events {
            let listener = event.node.flatMap { node in listeners.withLock { $0[node] } }
            if case .failed(let failure) = event, listener?.failuresAreNotes != true { record(failure) }
            listener?.handle(event)
        }
    }

    func record(_ error: Error) { first.withLock { if $0 == nil { $0 = userMessage(for: error) } } }
    var message: String? { first.withLock { $0 } }
}
