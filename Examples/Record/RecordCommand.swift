// record: a camera, a movie, a still image or a moving test picture → Beauty → H.264 in a
// crash-safe fragmented MP4, with an optional snapshot of the first frame.
//
//     swift run record [INPUT] [-o out.mp4] [--frames N] [--fragment-seconds S] [--snapshot snap.png]
//         [--stream rtmp://HOST/APP/KEY | srt://HOST:PORT | DIR/index.m3u8]
//
// With --stream, the same frames also go out live (x264 zerolatency, constant bit rate, a
// keyframe a second) while the file keeps every frame; a file input is then paced in real time.
// Without INPUT: the first camera when one exists, else the bundled Big Buck Bunny clip. A camera
// is recorded with the default microphone when a sound server (PulseAudio, PipeWire) answers;
// a movie keeps its own sound track.
//
// Kill it at any moment: the file plays up to the last fragment written.
import ArgumentParser
import ELImage
import ELImageMedia
import Foundation
import UnixSignals

@main
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Records a camera, a movie or an image through the beauty filter into a fragmented MP4.")

    @Argument(help: "A camera (/dev/videoN), a movie (MP4, MOV, MKV, Y4M, ...) or an image; none: a camera, else the bundled clip.")
    var input: String?

    @Flag(help: "Record a moving test picture (--size) instead of an input.")
    var testPicture = false

    @Option(name: .shortAndLong, help: "The MP4 (or .h264) file to write.")
    var output = "record.mp4"

    @Option(help: "Frames to record (default: the whole movie; 1 for an image; 150 for the test picture).")
    var frames: Int?

    @Option(help: "Seconds of video per MP4 fragment: what a crash can lose at most.")
    var fragmentSeconds = 1.0

    @Option(help: "Also save the first frame (as the encoder gets it) to this PNG or JPEG file.")
    var snapshot: String?

    @Option(help: "The test picture's size, WIDTHxHEIGHT.")
    var size = "640x360"

    @Option(help: "x264 constant rate factor (0-51, lower is better).")
    var crf = 23.0

    @Option(help: "Also stream live to this address: rtmp://HOST/APP/KEY, srt://HOST:PORT or DIR/index.m3u8.")
    var stream: String?

    @Option(help: "The live stream's constant bit rate in kbit/s.")
    var streamBitrate = 2500

    func run() async throws {
        // The context is closed when the scope ends (also on an error or Ctrl-C): the encoder
        // has finished the file and every thread has ended before the program exits. Its events
        // say each failure once, as it happens; they end when it closes.
        let (outcome, failures) = try await withRenderContext { context in
            let events = context.events
            let streamers = Locked<Set<NodeReference>>([])  // the live stream's encoder, once made
            let failures = Task { await sayEvents(events, streamers: streamers) }
            do {
                return (Result<UnixSignal?, any Error>.success(try await record(in: context, streamers: streamers)), failures)
            } catch {
                return (.failure(error), failures)
            }
        }
        let failuresSaid = await failures.value
        switch outcome {
        case .success(let signal?): Foundation.exit(GracefulStop.exitStatus(for: signal))
        case .success(nil): break
        // What finish() throws is usually a failure the events said: said once, then exit status 1.
        case .failure(let error) where failuresSaid.contains("\(error)"): throw ExitCode.failure
        case .failure(let error): throw error
        }
    }

    /// Says the failures and the recordings' news among `events` until they end (the context
    /// closed); returns what each failure's error said.
    private func sayEvents(_ events: RenderEvents, streamers: Locked<Set<NodeReference>>) async -> Set<String> {
        var said: Set<String> = []
        for await event in events {
            if case .failed(let failure) = event {
                said.insert("\(failure.error)")
                say("error: \(failure)")
            }
            switch event.message(RecordingEvent.self) {
            case let .started(path, width, height)?:
                let streaming = event.node.map { node in streamers.withLock { $0.contains(node) } } ?? false
                say(streaming ? "streaming to \(path)" : "recording \(width)x\(height) to \(path)")
            case let .fragmentWritten(fragment)?:
                say("fragment \(fragment.index) written: \(fragment.framesCompleted) frames, "
                    + String(format: "%.2f s, %lld bytes", fragment.duration.seconds, fragment.bytes))
            default: break
            }
        }
        return said
    }

    /// The sound beside the video of an .mp4: the default microphone for a camera (its clock
    /// anchored at the first frame; without a sound server, said once and video only); a movie
    /// keeps its own track, the encoder's default.
    private func sound(for source: RecordSource, context: RenderContext, live: Bool = false) -> RecordingSound {
        guard live || ContainerFormat.forPath(output) == .mp4(), !testPicture else { return .off }
        guard source.isLive else { return .fromSource }
        do {
            let microphone = try PulseAudioCapture(options: .init(clock: MediaClock()))
            context.register(microphone, stage: .sink)
            // A camera says when each frame was captured: the sound lines up with that moment.
            source.node --> MediaClockAnchor(clock: microphone.options.clock, timing: source.node as? CaptureTiming)
            say("sound from \(microphone.device.name)")
            return .track(microphone)
        } catch {
            say("no sound: \(error); recording video only")
            return .off
        }
    }

    /// Runs the graph until the input ends or Ctrl-C/SIGTERM stops it; returns that signal.
    private func record(in context: RenderContext, streamers: Locked<Set<NodeReference>>) async throws -> UnixSignal? {
        let target = try stream.map { address in
            guard let target = StreamTarget(address) else {
                throw ValidationError("--stream \(address): give rtmp://HOST/APP/KEY, srt://HOST:PORT or DIR/index.m3u8")
            }
            return target
        }
        let source = try RecordSource.open(input, frames: frames, testPicture: testPicture, size: size, realTime: target != nil)

        var settings = EncoderSettings()
        settings.rateControl = .constantQuality(crf)
        let encoder = try VideoEncoder(settings: settings)
        let still = Snapshot()
        let beauty = Beauty()
        source.node --> beauty --> encoder         // the graph
        beauty --> still

        try encoder.start(recordingTo: output, container: container(for: output, fragmentSeconds: fragmentSeconds),
                          audio: sound(for: source, context: context))
        // The live stream beside the file: its own encoder, and its own capture of the microphone.
        let live = try target.map { target in
            var settings = EncoderSettings()
            settings.tune = "zerolatency"
            settings.rateControl = .bitrate(kilobitsPerSecond: streamBitrate, maximumKilobitsPerSecond: streamBitrate,
                                            bufferKilobits: streamBitrate)
            settings.keyframeInterval = 30
            let streamer = try VideoEncoder(settings: settings)
            streamers.withLock { _ = $0.insert(NodeReference(streamer)) }
            beauty --> streamer
            try streamer.start(streamingTo: target, audio: sound(for: source, context: context, live: true))
            return streamer
        }
        let (capture, signal) = try await GracefulStop.run(onSignal: { signal in
            say("\(signal): finishing the recording (again to quit at once)")
            await source.close()
        }) {
            try await withThrowingTaskGroup(of: Snapshot.Capture?.self) { group in
                if let snapshot {
                    group.addTask { try await still.capture(to: snapshot) }
                    while still.pendingCount == 0 { await Task.yield() }  // asked before the first frame
                }
                try await source.run(context)
                return try await group.next() ?? nil
            }
        }
        let summary = try await encoder.finish()
        if let live {
            // A stream that failed says so (the events did too); the file is finished either way.
            defer { if let sent = live.statistics.stream { say("stream: \(sent)") } }
            _ = try? await live.finish()
        }
        if let capture { say("snapshot \(capture.path) at \(capture.timestamp.seconds) s") }
        let statistics = summary.statistics
        say("finished \(summary.path): \(statistics.encoded) frames, \(statistics.dropped) dropped, "
            + String(format: "%lld bytes, %.1f fps", statistics.bytesWritten, statistics.achievedFramesPerSecond))
        return signal
    }
}
