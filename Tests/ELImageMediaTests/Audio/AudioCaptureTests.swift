import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// Sound captured from a private PulseAudio server: listed, recorded beside the frames, in the
/// file as AAC or Opus with the tone the server made. Serialized: the tests set PULSE_SERVER for
/// the programs they start.
@Suite("Sound: capture from PulseAudio", .serialized)
struct AudioCaptureTests {
    let elimage = BuiltProgram(name: "elimage")

    /// `elimage` with the private server in its environment.
    func run(_ server: PulseAudioServer, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        setenv("PULSE_SERVER", server.address, 1)
        defer { unsetenv("PULSE_SERVER") }
        return try await elimage.run(arguments)
    }

    @Test("audio-devices lists the server's sources; no server: a clear error, exit status 1")
    func listing() async throws {
        let server = try await PulseAudioServer.start()
        defer { server.stop() }
        let devices = try AudioDevices.list(server: server.address)
        #expect(devices.contains { $0.name == "sine" && $0.sampleRate == 48_000 && $0.channels == 1 && !$0.isMonitor })
        #expect(devices.contains { $0.name == "nullsink.monitor" && $0.isMonitor })
        let result = try await run(server, ["audio-devices"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("sine"))
        #expect(throws: AudioCaptureError.self) { try AudioDevices.list(server: "unix:" + server.path("none.sock")) }
        #expect(throws: AudioCaptureError.self) { try PulseAudioCapture(options: .init(device: "no-such-source", server: server.address)) }
    }

    @Test("The source unplugged mid-capture (its module unloaded): one .failed event naming the capture on its context's events; the capture thread is the context's until closed")
    func sourceGoneMidCapture() async throws {
        // The sine source alone: with no other source, its stream cannot be moved elsewhere.
        let server = try PrivateSoundServer.start(modules: ["module-sine-source source_name=sine rate=48000 frequency=440"])
        defer { server.stop() }
        #expect(await waitUntil(timeout: .seconds(10)) { (try? AudioDevices.list(server: server.address)) != nil })
        let context = try TestContexts.make()
        let capture = try PulseAudioCapture(options: .init(device: "sine", server: server.address))
        context.register(capture, stage: .sink)
        #expect(context.runningThreadNames.contains("ELImage.audio"), "registered: the capture thread is the context's")
        let events = context.events
        // The server kills the recording stream of a source that goes away, as when a USB
        // microphone is pulled out.
        _ = try runTool("pactl", ["-s", server.address, "unload-module", "module-sine-source"])
        // The capture thread meets it at its next read (no other event to wait on than the one
        // under test).
        #expect(await waitUntil(timeout: .seconds(20)) { capture.failure != nil })
        await capture.close()
        #expect(!context.runningThreadNames.contains("ELImage.audio"), "closed: joined")
        await context.close()
        let all = try #require(await elementsUntilEnd(of: events))
        let failures = all.compactMap { event -> NodeFailure? in if case .failed(let failure) = event { failure } else { nil } }
        #expect(failures.count == 1, "\(failures)")
        #expect(failures.first?.reference.refers(to: capture) == true)
        guard case .deviceVanished? = failures.first?.error as? AudioCaptureError else {
            Issue.record("expected deviceVanished, got \(failures)")
            return
        }
    }

    @Test("A file paced in real time + --audio sine: the track holds 440 Hz, lasts as long as the video, ends with it",
          arguments: ["aac", "opus"])
    func captureTone(codec: String) async throws {
        let server = try await PulseAudioServer.start()
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("clip.mp4"), output = folder.path("capture.mp4")
        try AudioProbe.makeSyncClip(source)
        let result = try await run(server, ["run", source, "--realtime", "--audio", "sine", "--audio-codec", codec, "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("sound:"), "\(result.output)")
        let video = try #require(try AudioProbe.streams(output, kind: "v").first)
        let audio = try #require(try AudioProbe.streams(output, kind: "a").first)
        #expect(audio.codec == codec)
        // The video ends with its last frame shown for one frame (40 ms). (On a busy machine the
        // real-time pacing drops late frames, and the muxer lets the last one kept last as long
        // as the gap before it: the stream's duration would then say more.)
        let lastFrame = try #require(try AudioProbe.packetEnds(output, kind: "v").max())
        let audioEnd: Double = audio.start + audio.duration, videoEnd: Double = lastFrame + 0.04
        #expect(abs(audioEnd - videoEnd) <= 0.04, "audio ends at \(audioEnd) s, the last frame at \(videoEnd) s")
        #expect(abs(audio.start - video.start) <= 0.04, "audio starts at \(audio.start) s, video at \(video.start) s")
        let samples = try AudioProbe.samples(output, channels: 1)
        #expect(abs(Double(samples.count) / 48_000 - audio.duration) < 0.05)
        let peak = try #require(AudioProbe.dominantFrequency(samples, rate: 48_000))
        #expect(abs(peak - 440) <= 2, "the loudest frequency is \(peak) Hz")
    }

    @Test("--pre-record with --audio: the microphone's sound is kept from the file's first frame, while the run waits for SIGUSR1")
    func preRecordedSound() async throws {
        let server = try await PulseAudioServer.start()
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("clip.mp4"), output = folder.path("event.mp4")
        try AudioProbe.makeSyncClip(source, seconds: 6)
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = server.address
        let run = try SignalledRun(program: elimage, arguments: ["run", source, "--realtime", "--audio", "sine", "-o", output,
                                                                 "--pre-record", "1500ms"], environment: environment)
        defer { run.folder.remove() }
        #expect(try await run.waitUntilSaid("pre-recording: kill -USR1"))
        // Any moment while the clip plays; the sound before the window is let go meanwhile.
        try await Task.sleep(for: .seconds(3))
        kill(run.process.processIdentifier, SIGUSR1)
        #expect(await run.waitForExit(timeout: .seconds(60)))
        #expect(run.process.terminationStatus == 0, "\(run.errors)")
        #expect(run.output.contains("SIGUSR1: recording from"), "\(run.output)")
        let video = try #require(try AudioProbe.streams(output, kind: "v").first)
        let audio = try #require(try AudioProbe.streams(output, kind: "a").first)
        let lastFrame = try #require(try AudioProbe.packetEnds(output, kind: "v").max())
        #expect(abs(audio.start - video.start) <= 0.04, "audio starts at \(audio.start) s, video at \(video.start) s")
        #expect(abs(audio.start + audio.duration - (lastFrame + 0.04)) <= 0.04,
                "audio ends at \(audio.start + audio.duration) s, the last frame at \(lastFrame + 0.04) s")
        let peak = try #require(AudioProbe.dominantFrequency(try AudioProbe.samples(output, channels: 1), rate: 48_000))
        #expect(abs(peak - 440) <= 2, "the loudest frequency is \(peak) Hz")
    }

    @Test("--audio with a vanished server: an error naming it; with default? the recording goes on without sound")
    func optionalAudio() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("clip.mp4"), output = folder.path("out.mp4")
        try AudioProbe.makeSyncClip(source)
        setenv("PULSE_SERVER", "unix:" + folder.path("none.sock"), 1)
        defer { unsetenv("PULSE_SERVER") }
        var result = try await elimage.run(["run", source, "--realtime", "--frames", "5", "--audio", "default", "-o", output])
        #expect(result.status == 1)
        #expect(result.errors.contains("no sound server"), "\(result.errors)")
        result = try await elimage.run(["run", source, "--realtime", "--frames", "5", "--audio", "default?", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.components(separatedBy: "recording without sound").count == 2, "\(result.output)")
        #expect(try AudioProbe.streams(output, kind: "a").isEmpty)
        result = try await elimage.run(["run", source, "--audio", "default", "-o", output])
        #expect(result.status == 2, "--audio with a file needs --realtime: \(result.errors)")
    }
}
