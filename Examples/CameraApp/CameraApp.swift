import ELImage
import ELImageCamera
import ELImageDetection
import ELImageMedia
import ELImagePreview
import Foundation
import Synchronization

/// The camera app's graph and its commands:
///
///     source --> beauty --> background blur --> hub --> preview window
///        |\___(beauty off)__/                    \--> video encoder (while recording), snapshot (photos),
///        |                                         live stream encoder (with --stream; s stops and starts it)
///        |--> face landmarks (five analyses a second at most, the newest frame winning): steer beauty
///        \--> people (while g has the blur on; ten analyses a second at most): steer the blur
///
/// Keys arrive on the window's thread and are queued as commands; `run()` handles them one at a
/// time, so that photos and recordings finish before the program ends. The render context's
/// events (`sayEvents(_:)`) tell failures and ends: a recording that ended by itself is finished then.
final class CameraApp: Sendable {
    enum Command: Sendable {
        case record, photo, switchCamera, toggleBeauty, toggleBackgroundBlur, toggleStream, tick, quit
        /// The recording to this file ended by itself (end of stream, a limit, a failure).
        case recordingEnded(String)
    }

    private let context: RenderContext
    private let source: AppSource
    private let beauty = Beauty()
    /// Off (strength 0, no draw) until g; then steered by `people`.
    private let backgroundBlur = BackgroundBlur(strength: 0)
    private let hub = Passthrough()
    private let encoder: VideoEncoder
    private let snapshot = Snapshot()
    private let window: PreviewWindow
    private let folder: String
    private let frameLimit: Int?
    /// With a pre-record, the encoder keeps the last seconds in memory between recordings, and r
    /// starts a file that many seconds before it.
    private let preRecord: Duration?
    private let beautyOn = Atomic<Bool>(true)
    /// The landmark detector whose faces steer beauty (its skin colour, folds, eyes and lips); nil
    /// when its networks are missing (beauty then learns the skin without faces).
    private let faces: DetectorOutput?
    /// Faces in the newest analysis.
    private let faceCount = Locked(0)
    /// The person segmenter whose masks steer the background blur, connected while it is on; nil
    /// when its networks are missing (g then says so).
    private let people: DetectorOutput?
    /// The file of the recording started with r and not stopped yet (it may have ended by itself:
    /// end of stream).
    private let recording = Mutex<String?>(nil)
    /// The live stream (`--stream`): its encoder and where it goes.
    private let streamer: VideoEncoder?
    private let streamTarget: StreamTarget?
    /// A stream was started whose end is not said yet (it may have ended by itself: end of stream).
    private let streamRunning = Mutex(false)
    private let commands: AsyncStream<Command>
    private let queue: AsyncStream<Command>.Continuation

    init(context: RenderContext, display: PreviewDisplay, input: String?, folder: String, frameLimit: Int?,
         preRecord: Duration? = nil, stream: StreamTarget? = nil) throws {
        self.context = context
        self.folder = folder
        self.frameLimit = frameLimit
        self.preRecord = preRecord
        source = try AppSource.open(input)
        encoder = try VideoEncoder()
        streamTarget = stream
        if stream != nil {
            var live = EncoderSettings()
            live.tune = "zerolatency"
            live.rateControl = .bitrate(kilobitsPerSecond: 2500, maximumKilobitsPerSecond: 2500, bufferKilobits: 2500)
            live.keyframeInterval = 30
            streamer = try VideoEncoder(settings: live)
        } else {
            streamer = nil
        }
        // The networks load before the window shows, and the keys are taken from the moment it
        // shows (queued until `run()` handles them): a key pressed at once is not lost.
        faces = Self.faceBranch(steering: beauty, counting: faceCount)
        people = Self.peopleBranch(steering: backgroundBlur)
        (commands, queue) = AsyncStream<Command>.makeStream()
        window = try PreviewWindow(context: context, display: display, options: .init(title: "ELImage camera"))
        Self.takeKeys(of: window, into: queue)
        source.node --> beauty --> backgroundBlur --> hub
        if let faces { source.node --> faces }
        hub --> window
        hub --> encoder
        hub --> snapshot
        if let streamer { hub --> streamer }
        if let frameLimit {
            let (source, queue) = (source, queue)
            hub --> FrameCounter { count in
                if count == frameLimit {
                    Task { await source.close() }
                    queue.yield(.quit)
                }
            }
        }
    }

    /// Says the failures among `events` as they come, and finishes a recording that ended by
    /// itself; returns when the context has closed. A recording's failure is said once, by
    /// `finishRecording()`, which gets it from `finish()`.
    func sayEvents(_ events: RenderEvents) async {
        for await event in events {
            switch event {
            case .failed(let failure) where streamer.map({ failure.reference.refers(to: $0) }) == true:
                say("the stream failed: \(failure.error); s tries again")
            case .failed(let failure) where !failure.reference.refers(to: encoder):
                say("error: \(failure)")
            case .sinkFinished(let end) where end.node.refers(to: encoder):
                queue.yield(.recordingEnded(end.path))
            case .lost(let count):
                say("(\(count) events not shown)")
            default:
                break
            }
        }
    }

    /// Shows the source until `q`, the close button, Ctrl-C, the end of the input or the frame limit.
    func run() async throws {
        let queue = self.queue
        say("camera-app: showing \(source.name); keys: r record, p photo, c camera, b beauty, g background blur, "
            + (streamer == nil ? "" : "s stream, ") + "f fullscreen, q quit")
        armPreRecord()
        startStream()
        let stopped = Locked(false)
        _ = try await GracefulStop.run(onSignal: { _ in queue.yield(.quit) }) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [source, context] in
                    defer { queue.yield(.quit) }
                    try await source.run(context)
                }
                group.addTask {  // the title's status, twice a second
                    while !stopped.withLock({ $0 }) {
                        try? await Task.sleep(for: .milliseconds(500))
                        queue.yield(.tick)
                    }
                }
                for await command in commands {
                    if case .quit = command { break }
                    await handle(command)
                }
                stopped.withLock { $0 = true }
                await source.close()
                try await group.waitForAll()
            }
        }
        if recording.withLock({ $0 }) != nil { await finishRecording() }
        // A pre-record nobody triggered: nothing to keep.
        if encoder.currentState == .waitingForTrigger { await encoder.discard() }
        await finishStream()
        await faces?.close()
        await people?.close()
        say("camera-app: \(statusLine)")
    }

    /// Queues the window's keys and close button as commands.
    private static func takeKeys(of window: PreviewWindow, into queue: AsyncStream<Command>.Continuation) {
        window.onCloseRequest = { queue.yield(.quit) }
        window.onKey = { key in
            switch key {
            case .character("r"): queue.yield(.record)
            case .character("p"): queue.yield(.photo)
            case .character("c"): queue.yield(.switchCamera)
            case .character("b"): queue.yield(.toggleBeauty)
            case .character("g"): queue.yield(.toggleBackgroundBlur)
            case .character("s"): queue.yield(.toggleStream)
            default: break
            }
        }
    }

    /// A landmark detector beside the graph: each analysis gives beauty the faces found (their
    /// boxes seed its skin colour, their landmarks its folds, eyes and lips) and says how many there
    /// are when that changes. Without the networks (`make deps` installs them) it says so and
    /// beauty works without faces.
    private static func faceBranch(steering beauty: Beauty, counting count: Locked<Int>) -> DetectorOutput? {
        do {
            let settings = DetectorOutput.Settings(maximumRate: 5, waitsForDetector: false)
            return try DetectorOutput(detector: try FaceLandmarkDetector(), settings: settings) { found in
                beauty.follow(found)
                let faces = found.facePoints.count
                let changed = count.withLock { count in
                    guard count != faces else { return false }
                    count = faces
                    return true
                }
                if changed { say("beauty follows \(faces) face\(faces == 1 ? "" : "s") with landmarks") }
            }
        } catch {
            say("beauty without face landmarks: \(error)")
            return nil
        }
    }

    /// A person segmenter for the background blur (connected by g): each analysis gives the blur
    /// the newest mask. Without the networks (`make deps` installs them) nil, and g says so.
    private static func peopleBranch(steering blur: BackgroundBlur) -> DetectorOutput? {
        do {
            let settings = DetectorOutput.Settings(maximumRate: 10, waitsForDetector: false)
            return try DetectorOutput(detector: try PersonSegmenter(), settings: settings) { blur.follow($0) }
        } catch {
            say("no background blur: \(error)")
            return nil
        }
    }

    private func handle(_ command: Command) async {
        switch command {
        case .record where preRecord != nil:
            if recording.withLock({ $0 }) == nil, let start = encoder.trigger() {
                recording.withLock { $0 = pattern }
                say("recording from \(start) (the pre-record before r)")
            } else if recording.withLock({ $0 }) != nil {
                await finishRecording()
                armPreRecord()
            }
        case .record:
            if recording.withLock({ $0 }) == nil {
                let path = "\(folder)/video-\(Self.stamp()).mp4"
                do {
                    try encoder.start(recordingTo: path)
                    recording.withLock { $0 = path }
                    say("recording to \(path)")
                } catch {
                    say("cannot record: \(error)")
                }
            } else {
                await finishRecording()
            }
        case .recordingEnded(let path):
            // Not one stopped with r, whose end may come after the next recording began.
            if recording.withLock({ $0 }) == path { await finishRecording() }
        case .photo:
            let path = "\(folder)/photo-\(Self.stamp()).png"
            do {
                let capture = try await snapshot.capture(to: path)
                say("photo saved to \(capture.path)")
            } catch {
                say("cannot take the photo: \(error)")
            }
        case .switchCamera:
            say(source.switchCamera())
        case .toggleBeauty:
            let on = !beautyOn.load(ordering: .relaxed)
            beautyOn.store(on, ordering: .relaxed)
            if on {
                source.node.removeTarget(backgroundBlur)
                source.node.addTarget(beauty)
            } else {
                source.node.removeTarget(beauty)
                source.node.addTarget(backgroundBlur)
            }
            say("beauty \(on ? "on" : "off")")
        case .toggleBackgroundBlur:
            guard let people else {
                say("no background blur: the person segmentation networks are missing (make deps installs them)")
                return
            }
            if backgroundBlur.strength > 0 {
                source.node.removeTarget(people)
                backgroundBlur.strength = 0
                say("background blur off")
            } else {
                backgroundBlur.personMask = nil  // no stale mask: the blur starts with the next analysis
                source.node.addTarget(people)
                backgroundBlur.strength = 0.7
                say("background blur on")
            }
        case .toggleStream:
            if streamer?.currentState == .recording { await finishStream() } else { startStream() }
        case .tick:
            window.setTitle("ELImage camera: \(statusLine)")
        case .quit:
            break
        }
    }

    /// The pattern of pre-recorded files: named at their first frame.
    private var pattern: String { "\(folder)/video-%Y%m%d-%H%M%S.mp4" }

    /// Starts keeping the last seconds in memory (with `--pre-record`), for r to start a file.
    private func armPreRecord() {
        guard let preRecord else { return }
        do {
            try encoder.start(recordingTo: pattern, preRecord: preRecord)
            say("pre-recording \(preRecord): r starts a recording that far back")
        } catch {
            say("cannot pre-record: \(error)")
        }
    }

    /// Starts the live stream (`--stream`), video only.
    private func startStream() {
        guard let streamer, let streamTarget else { return }
        do {
            try streamer.start(streamingTo: streamTarget, audio: .off)
            streamRunning.withLock { $0 = true }
            say("streaming to \(streamTarget)")
        } catch {
            say("cannot stream: \(error)")
        }
    }

    /// Sends what is queued and ends the stream; says what was sent.
    private func finishStream() async {
        guard let streamer, streamRunning.withLock({ running in defer { running = false }; return running }) else { return }
        _ = try? await streamer.finish()  // a failure was said by the events
        if let sent = streamer.statistics.stream { say("stream: \(sent)") }
    }

    private func finishRecording() async {
        recording.withLock { $0 = nil }
        do {
            let summary = try await encoder.finish()
            say("recorded \(summary.statistics.encoded) frames to \(summary.path)")
        } catch {
            say("recording failed: \(error)")
        }
    }

    /// "REC 0:04 | 29.9 fps | 3 dropped | beauty on (1 faces) | bundled clip".
    private var statusLine: String {
        let preview = window.statistics
        var parts: [String] = []
        if encoder.currentState == .waitingForTrigger { parts.append("pre-recording") }
        if encoder.currentState == .recording {
            let seconds = Int(encoder.statistics.recordedDuration.components.seconds)
            parts.append(String(format: "REC %d:%02d", seconds / 60, seconds % 60))
        }
        if streamer?.currentState == .recording { parts.append("LIVE") }
        parts.append(String(format: "%.1f fps", previewRate.update(presented: preview.presented)))
        parts.append("\(preview.dropped + source.droppedFrames) dropped")
        parts.append("beauty \(beautyOn.load(ordering: .relaxed) ? "on" : "off")"
                     + (faces == nil ? "" : " (\(faceCount.withLock { $0 }) faces)"))
        if backgroundBlur.strength > 0 {
            let blurred = backgroundBlur.statistics.framesBlurred
            parts.append("background blur on (\(blurred) frames)")
        }
        parts.append(source.name)
        return parts.joined(separator: " | ")
    }

    private let previewRate = RateMeter()

    private static func stamp() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        return formatter.string(from: Date())
    }
}

/// Frames a second, from a growing count sampled now and then.
final class RateMeter: Sendable {
    private let last = Locked<(count: Int, time: ContinuousClock.Instant)?>(nil)

    func update(presented count: Int) -> Double {
        let now = ContinuousClock.now
        return last.withLock { last in
            defer { last = (count, now) }
            guard let previous = last else { return 0 }
            let seconds = Double((now - previous.time).components.attoseconds) / 1e18 + Double((now - previous.time).components.seconds)
            return seconds > 0 ? Double(count - previous.count) / seconds : 0
        }
    }
}

/// Prints a line at once, so a parent process reading the pipe sees it live.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
