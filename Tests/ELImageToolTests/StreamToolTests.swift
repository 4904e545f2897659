import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// `elimage run … -o rtmp://…`: a filtered movie streamed to a private nginx with a recording
/// beside it, keyframes where --gop puts them, and the errors a user sees.
@Suite("elimage run -o rtmp://, srt://, index.m3u8")
struct StreamToolTests {
    let elimage = BuiltProgram(name: "elimage")
    let bunny = Repository.path("Examples/Media/bigbuckbunny.mp4")

    /// A 4 s 160x120 clip at 25 fps with AAC sound.
    static func smallClip(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("small.mp4")
        try AudioProbe.makeSyncClip(path, seconds: 4)
        return path
    }

    @Test("Streaming to RTMP with --record: every frame in both, keyframes each --gop second, the summary says what was sent")
    func rtmpWithRecording() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try PrivateStreamingServer.start()
        defer { server.stop() }
        let recording = folder.path("local.mp4")
        let result = try await elimage.run(["run", try Self.smallClip(in: folder), "--filter", "grayscale", "-o", server.rtmpURL(stream: "tool"),
                                            "--record", recording, "--tune", "zerolatency", "--maxrate", "2000", "--gop", "1"])
        server.stopKeepingFiles()
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("streaming to rtmp://127.0.0.1:\(server.rtmpPort)/live/…"), "\(result.output)")
        #expect(!result.output.contains("/live/tool"), "the stream key is never printed: \(result.output)")
        let streamed = try #require(result.output.firstMatch(of: /streamed (\d+) frames/).flatMap { Int($0.1) }, "\(result.output)")
        let sent = try #require(result.output.firstMatch(of: /stream: (\d+) frames sent to .*, 0 dropped/).flatMap { Int($0.1) },
                                "\(result.output)")
        // (The clip has 132 frames; real-time pacing lets a busy machine drop some before the stream.)
        #expect(sent == streamed && streamed >= 20, "\(result.output)")
        let files = server.recordings()
        try #require(files.count == 1)
        let arrived = try StreamProbe.packetCounts(files[0])
        #expect(arrived.video == sent && arrived.audioCodec == "aac")
        #expect(try StreamProbe.packetCounts(recording).video == streamed, "--record keeps every frame")
        // A keyframe every second of the clip's 25 fps (x264 counts the frames it was given).
        let flags = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                                             "-of", "csv=p=0", files[0]]), as: UTF8.self).split(separator: "\n")
        let keyframes = flags.enumerated().filter { $0.element.hasPrefix("K") }.map(\.offset)
        let gaps = zip(keyframes, keyframes.dropFirst()).map { $1 - $0 }
        #expect(keyframes.count >= 2 && gaps.allSatisfy { $0 <= 25 } && gaps.contains(25), "keyframes at \(keyframes)")
    }

    @Test("A throttled link (100 kbit/s for a 1500 kbit/s stream, the first 6 s): the summary's frames are nginx's, the link's drops and the input's are counted where they happened, and --record's are ffprobe's")
    func throttledLinkAccount() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("noise.mp4"), recording = folder.path("beside.mp4")
        try EncoderFixtures.writeNoiseClip(to: source, seconds: 10)
        let server = try PrivateStreamingServer.start()
        defer { server.stop() }
        let link = try ThrottledLink(to: server.rtmpPort, bytesPerSecond: 12_500)
        defer { link.stop() }
        let opening = Task {
            try await Task.sleep(for: .seconds(6))
            link.bytesPerSecond = nil
        }
        let result = try await elimage.run(["run", source, "-o", "rtmp://127.0.0.1:\(link.port)/live/slow", "--record", recording,
                                            "--preset", "ultrafast", "--tune", "zerolatency", "--bitrate", "1500", "--maxrate", "1500",
                                            "--gop", "1", "--max-delay", "1s"])
        try await opening.value
        #expect(await waitUntil(timeout: .seconds(20)) { link.openConnections == 0 }, "the link still relays the stream's end")
        #expect(await server.waitUntilRecordingsClosed(1), "nginx did not close the recording")
        server.stopKeepingFiles()
        #expect(result.status == 0, "\(result.errors)")
        let line = try #require(result.output.firstMatch(
            of: /streamed (\d+) frames to .*; the input made (\d+) frames: (\d+) went through, (\d+) dropped \((.*)\)/), "\(result.output)")
        let (streamed, made, through, dropped) = (Int(line.1) ?? -1, Int(line.2) ?? -1, Int(line.3) ?? -1, Int(line.4) ?? -1)
        #expect(made == 250 && through + dropped == made && through == streamed, "\(result.output)")
        #expect(line.5.contains(/\d+ at the link to rtmp:\/\/127\.0\.0\.1:\d+\/live\/…: slower than the stream/), "\(line.5)")
        let files = server.recordings()
        try #require(files.count == 1, "one publish: \(files)")
        #expect(try StreamProbe.packetCounts(files[0]).video == streamed, "the summary's frames are those nginx recorded")
        let recorded = try #require(result.output.firstMatch(of: /recorded (\d+) frames to .*beside\.mp4/).flatMap { Int($0.1) },
                                    "\(result.output)")
        #expect(try EncoderFixtures.decodedFrameCount(recording) == recorded, "--record's summary is ffprobe's count")
        #expect(recorded > streamed, "--record keeps the frames the link dropped")
    }

    @Test("The record example with --stream: the file keeps every frame, the stream sends them, both with sound")
    func recordExample() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try PrivateStreamingServer.start()
        defer { server.stop() }
        let file = folder.path("beside.mp4")
        let result = try await BuiltProgram(name: "record").run([try Self.smallClip(in: folder), "-o", file, "--stream", server.rtmpURL(stream: "rec")])
        server.stopKeepingFiles()
        #expect(result.status == 0, "\(result.errors)")
        let sent = try #require(result.output.firstMatch(of: /stream: (\d+) frames sent to .*, 0 dropped/).flatMap { Int($0.1) },
                                "\(result.output)")
        let recorded = try StreamProbe.packetCounts(file)
        #expect(recorded.video == sent && recorded.audioCodec == "aac", "the file and the stream carry the same frames")
        let files = server.recordings()
        try #require(files.count == 1)
        let arrived = try StreamProbe.packetCounts(files[0])
        #expect(arrived.video == sent && arrived.audioCodec == "aac", "\(arrived)")
        try StreamProbe.decodeCleanly(files[0])
    }

    @Test("A server that is not there: the run ends at once with the address and what to check; the recording beside it is complete")
    func nothingListening() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let port = try ServerProcess.freePort()
        let recording = folder.path("local.mp4")
        let result = try await elimage.run(["run", try Self.smallClip(in: folder), "-o", "rtmp://127.0.0.1:\(port)/live/key", "--record", recording])
        #expect(result.status == 1)
        #expect(result.errors.contains("cannot connect to rtmp://127.0.0.1:\(port)/live/…: Connection refused"), "\(result.errors)")
        #expect(result.errors.contains("nothing listens there"), "\(result.errors)")
        #expect(try StreamProbe.packetCounts(recording).video > 0, "the recording beside the failed stream is in place")
    }

    @Test("Secrets are never printed: user info, the key and query keys in the address, and FFmpeg's own lines (quiet unless --log-level asks, then redacted)")
    func secretsNeverPrinted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try Self.smallClip(in: folder)
        let port = try ServerProcess.freePort()
        let rtmp = try await elimage.run(["run", clip, "--frames", "5", "-o", "rtmp://alice:S3cretPW@127.0.0.1:\(port)/live/KEY42?key=abc9"])
        #expect(rtmp.status == 1)
        #expect(rtmp.errors.contains("cannot connect to rtmp://…@127.0.0.1:\(port)/live/…?key=…"), "\(rtmp.errors)")
        for secret in ["S3cretPW", "KEY42", "abc9"] {
            #expect(!(rtmp.output + rtmp.errors).contains(secret), "\(secret) printed: \(rtmp.output) \(rtmp.errors)")
        }
        // SRT to a port nobody listens on: FFmpeg says why, with the passphrase and stream id in its line.
        let srt = ["run", clip, "--frames", "5", "-o", "srt://127.0.0.1:\(port)?passphrase=supersecret123&streamid=mystream77"]
        let quiet = try await elimage.run(srt)
        #expect(quiet.status == 1 && quiet.errors.contains("cannot connect to srt://127.0.0.1:\(port)?passphrase=…&streamid=…"), "\(quiet.errors)")
        #expect(!quiet.errors.contains("ffmpeg:") && !quiet.errors.contains("[srt"), "FFmpeg's lines by default: \(quiet.errors)")
        let told = try await elimage.run(srt + ["--log-level", "debug"])
        #expect(told.errors.contains("ffmpeg: [srt @"), "--log-level debug shows FFmpeg's lines: \(told.errors)")
        for secret in ["supersecret123", "mystream77"] {
            #expect(!(quiet.output + quiet.errors + told.output + told.errors).contains(secret), "\(secret) printed")
        }
    }

    @Test("The stream key from --stream-key-file or ELIMAGE_STREAM_KEY: the server gets it, nothing prints it")
    func streamKeyOutsideTheCommandLine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try PrivateStreamingServer.start()
        defer { server.stop() }
        let clip = try Self.smallClip(in: folder)
        let base = "rtmp://127.0.0.1:\(server.rtmpPort)/live"
        let keyFile = folder.path("key.txt")
        try "fromfile7\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        let fromFile = try await elimage.run(["run", clip, "--frames", "10", "-o", base, "--stream-key-file", keyFile])
        let fromEnvironment = try await elimage.run(["run", clip, "--frames", "10", "-o", base], environment: ["ELIMAGE_STREAM_KEY": "fromenv8"])
        #expect(await waitUntil { server.closedRecordings == 2 }, "nginx closed \(server.closedRecordings) recordings")
        server.stopKeepingFiles()
        for (result, key) in [(fromFile, "fromfile7"), (fromEnvironment, "fromenv8")] {
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.contains("streaming to \(base)/…"), "\(result.output)")
            #expect(!(result.output + result.errors).contains(key), "the key was printed: \(result.output) \(result.errors)")
            let recorded = server.recordings().filter { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix(key + "-") }
            try #require(recorded.count == 1, "nginx recorded \(server.recordings())")
            #expect(try StreamProbe.packetCounts(recorded[0]).video > 0)
        }
        let picture = try await elimage.run(["run", clip, "-o", folder.path("x.png"), "--stream-key-file", keyFile])
        #expect(picture.status == 2 && picture.errors.contains("--stream-key-file goes with a live stream"), "\(picture.errors)")
    }

    @Test("Usage: an address ELImage cannot stream to, --record without a stream or with a picture, Opus for a stream")
    func usage() async throws {
        let ftp = try await elimage.run(["run", bunny, "-o", "ftp://example.com/x.mp4"])
        #expect(ftp.status != 0 && ftp.errors.contains("streams to rtmp://, rtmps:// and srt:// addresses"), "\(ftp.errors)")
        let file = try await elimage.run(["run", bunny, "-o", "/tmp/never.mp4", "--record", "/tmp/never-either.mp4"])
        #expect(file.status != 0 && file.errors.contains("go with a live stream"), "\(file.errors)")
        let picture = try await elimage.run(["run", bunny, "-o", "rtmp://127.0.0.1:1/live/x", "--record", "/tmp/x.png"])
        #expect(picture.status != 0 && picture.errors.contains("--record /tmp/x.png: records a video file"), "\(picture.errors)")
        let opus = try await elimage.run(["run", bunny, "-o", "srt://127.0.0.1:1", "--audio", "default", "--audio-codec", "opus"])
        #expect(opus.status != 0 && opus.errors.contains("carries AAC sound"), "\(opus.errors)")
    }
}
