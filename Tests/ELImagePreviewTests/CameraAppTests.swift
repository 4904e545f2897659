import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// The camera app as a user drives it, on a private Xvfb with xdotool: a photo, a recording, quit.
/// There is no camera here, so it shows the bundled clip.
@Suite("camera-app example")
struct CameraAppTests {
    @Test("p saves a photo, r starts and stops a recording, q quits with both files complete")
    func photoRecordingQuit() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let saved = try TemporaryFolder()
        defer { saved.remove() }
        let run = try SignalledRun(program: BuiltProgram(name: "camera-app"), arguments: ["--folder", saved.url.path],
                                   environment: server.clientEnvironment)
        let window = try await server.window(titled: "ELImage camera", while: { run.process.isRunning })
        let id = try #require(window, "no camera-app window appeared: \(run.output) \(run.errors)")
        try server.press("p", in: id)
        #expect(try await run.waitUntilSaid("photo saved"), "\(run.output)")
        try server.press("r", in: id)
        let watch = try FolderWatch(saved.url.path)
        #expect(try await run.waitUntilSaid("recording to"), "\(run.output)")
        // Frames are being recorded: a fragment is on disk.
        let recorded = await watch.wait {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: saved.url.path)) ?? []
            return names.contains { FileManager.default.contents(atPath: saved.path($0))?.range(of: Data("moof".utf8)) != nil }
        }
        #expect(recorded, "no fragment recorded: \(run.output) \(run.errors)")
        try server.press("q", in: id)
        #expect(await run.waitForExit(), "camera-app did not quit on q")
        #expect(run.process.terminationStatus == 0, "\(run.output) \(run.errors)")

        let files = try FileManager.default.contentsOfDirectory(atPath: saved.url.path)
        let photo = try #require(files.first { $0.hasSuffix(".png") }, "no photo in \(files)")
        let video = try #require(files.first { $0.hasSuffix(".mp4") }, "no recording in \(files)")
        let size = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                                           saved.path(photo)])
        #expect(String(decoding: size, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "1280,720")
        let frames = try countFrames(saved.path(video))
        #expect(frames >= 1)
        #expect(run.output.contains("recorded \(frames) frames"), "\(run.output)")
    }

    @Test("Beauty follows the faces the landmark branch finds: on a portrait clip it says one face, the title shows it, q quits")
    func beautyFollowsFaces() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let saved = try TemporaryFolder()
        defer { saved.remove() }
        let clip = saved.path("portrait.mp4")
        try runTool("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-i", Repository.path("Examples/Media/grace_hopper.jpg"),
                               "-t", "2", "-r", "25", "-pix_fmt", "yuv420p", "-c:v", "libx264", clip])
        let run = try SignalledRun(program: BuiltProgram(name: "camera-app"), arguments: [clip, "--folder", saved.url.path],
                                   environment: server.clientEnvironment)
        let window = try await server.window(titled: "ELImage camera", while: { run.process.isRunning })
        let id = try #require(window, "no camera-app window appeared: \(run.output) \(run.errors)")
        #expect(try await run.waitUntilSaid("beauty follows 1 face with landmarks"), "\(run.output) \(run.errors)")
        try server.press("q", in: id)
        #expect(await run.waitForExit(), "camera-app did not quit on q")
        #expect(run.process.terminationStatus == 0, "\(run.output) \(run.errors)")
        #expect(run.output.contains("beauty on (1 faces)"), "the last status line: \(run.output)")
    }

    @Test("g blurs the background: a photo after g has the flag behind the portrait blurred and the face kept; g again turns it off, q quits")
    func backgroundBlurKey() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let saved = try TemporaryFolder()
        defer { saved.remove() }
        let clip = saved.path("portrait.mp4")
        try runTool("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-i", Repository.path("Examples/Media/grace_hopper.jpg"),
                               "-t", "10", "-r", "25", "-vf", "scale=308:360,pad=640:360:166:0:color=0x3060a0",
                               "-pix_fmt", "yuv420p", "-c:v", "libx264", clip])
        let run = try SignalledRun(program: BuiltProgram(name: "camera-app"), arguments: [clip, "--folder", saved.url.path],
                                   environment: server.clientEnvironment)
        let window = try await server.window(titled: "ELImage camera", while: { run.process.isRunning })
        let id = try #require(window, "no camera-app window appeared: \(run.output) \(run.errors)")
        // Beauty settles on the face first, so that the two photos differ by the blur alone.
        #expect(try await run.waitUntilSaid("beauty follows 1 face with landmarks"), "\(run.output) \(run.errors)")
        try await Task.sleep(for: .seconds(1))
        try server.press("p", in: id)
        #expect(try await run.waitUntilSaid("photo saved"), "\(run.output)")
        try server.press("g", in: id)
        #expect(try await run.waitUntilSaid("background blur on"), "\(run.output) \(run.errors)")
        // The title shows blurred frames once a mask has come.
        let blurring = try await server.window(titled: "background blur on \\([1-9]", while: { run.process.isRunning }) != nil
        #expect(blurring, "the title never showed blurred frames: \(run.output)")
        try await Task.sleep(for: .milliseconds(500))
        try server.press("p", in: id)
        let second = await waitUntil(timeout: .seconds(10)) { run.output.components(separatedBy: "photo saved").count == 3 }
        #expect(second, "\(run.output)")
        try server.press("g", in: id)
        #expect(try await run.waitUntilSaid("background blur off"), "\(run.output)")
        try server.press("q", in: id)
        #expect(await run.waitForExit(), "camera-app did not quit on q")
        #expect(run.process.terminationStatus == 0, "\(run.output) \(run.errors)")

        let photos = try FileManager.default.contentsOfDirectory(atPath: saved.url.path).filter { $0.hasSuffix(".png") }.sorted()
        if let dump = ProcessInfo.processInfo.environment["ELIMAGE_DUMP"] { for photo in photos { try? FileManager.default.copyItem(atPath: saved.path(photo), toPath: dump + "/" + photo) } }
        try #require(photos.count == 2, "\(photos)")
        let (before, after) = (try PNGFile.read(saved.path(photos[0])), try PNGFile.read(saved.path(photos[1])))
        func variance(_ image: RGBAImage, x: Range<Int>, y: Range<Int>) -> Double {
            let values = y.flatMap { row in x.map { Double(image[$0, row].x) } }
            let mean = values.reduce(0, +) / Double(values.count)
            return values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
        }
        // The flag, left of the hat (the photo is the clip's 640×360).
        let flagBefore = variance(before, x: 172..<230, y: 10..<120), flagAfter = variance(after, x: 172..<230, y: 10..<120)
        #expect(flagAfter < 0.5 * flagBefore, "flag variance \(flagBefore) → \(flagAfter)")
        var face = 0.0
        for y in 120..<180 { for x in 290..<350 { face += abs(Double(after[x, y].x) - Double(before[x, y].x)) } }
        #expect(face / 3600 < 2, "the face changed by \(face / 3600) levels on average")
    }

    @Test("--stream rtmp://…: streams from the start, s stops the stream (every frame sent arrived) and starts a second one, q ends it")
    func streamKey() async throws {
        let display = try await DisplayServer(.xvfb)
        defer { display.stop() }
        let server = try PrivateStreamingServer.start()
        defer { server.stop() }
        let saved = try TemporaryFolder()
        defer { saved.remove() }
        let run = try SignalledRun(program: BuiltProgram(name: "camera-app"),
                                   arguments: ["--folder", saved.url.path, "--stream", server.rtmpURL(stream: "app")],
                                   environment: display.clientEnvironment)
        let window = try await display.window(titled: "ELImage camera", while: { run.process.isRunning })
        let id = try #require(window, "no camera-app window appeared: \(run.output) \(run.errors)")
        #expect(try await run.waitUntilSaid("streaming to rtmp://127.0.0.1:\(server.rtmpPort)/live/…"), "\(run.output)")
        try await Task.sleep(for: .seconds(2))
        try display.press("s", in: id)
        #expect(try await run.waitUntilSaid("stream: "), "\(run.output)")
        try await Task.sleep(for: .milliseconds(500))
        try display.press("s", in: id)
        let again = await waitUntil(timeout: .seconds(10)) { run.output.components(separatedBy: "streaming to").count == 3 }
        #expect(again, "s did not start the stream again: \(run.output)")
        try await Task.sleep(for: .seconds(2))
        try display.press("q", in: id)
        #expect(await run.waitForExit(), "camera-app did not quit on q")
        #expect(run.process.terminationStatus == 0, "\(run.output) \(run.errors)")
        server.stopKeepingFiles()

        let sent = run.output.matches(of: /stream: (\d+) frames sent to [^,]*, 0 dropped/).compactMap { Int($0.1) }
        let files = server.recordings()
        #expect(sent.count == 2 && files.count == 2, "\(run.output) \(files)")
        for (file, frames) in zip(files, sent) {
            #expect(frames > 0)
            #expect(try StreamProbe.packetCounts(file).video == frames, "\(file): \(frames) sent")
        }
    }

    @Test("--pre-record 2: r starts a recording two seconds back, named at its first frame; r ends it and arms again")
    func preRecordKey() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let saved = try TemporaryFolder()
        defer { saved.remove() }
        let run = try SignalledRun(program: BuiltProgram(name: "camera-app"), arguments: ["--folder", saved.url.path, "--pre-record", "2"],
                                   environment: server.clientEnvironment)
        let window = try await server.window(titled: "ELImage camera", while: { run.process.isRunning })
        let id = try #require(window, "no camera-app window appeared: \(run.output) \(run.errors)")
        #expect(try await run.waitUntilSaid("pre-recording"), "\(run.output)")
        // The clip plays into the pre-record buffer for more than its two seconds.
        try await Task.sleep(for: .seconds(3))
        #expect(try FileManager.default.contentsOfDirectory(atPath: saved.url.path).isEmpty)
        try server.press("r", in: id)
        #expect(try await run.waitUntilSaid("recording from"), "\(run.output)")
        try server.press("r", in: id)
        #expect(try await run.waitUntilSaid("recorded "), "\(run.output)")
        try server.press("q", in: id)
        #expect(await run.waitForExit(), "camera-app did not quit on q")
        #expect(run.process.terminationStatus == 0, "\(run.output) \(run.errors)")

        let files = try FileManager.default.contentsOfDirectory(atPath: saved.url.path)
        #expect(files.count == 1, "\(files)")
        let video = try #require(files.first)
        #expect(video.wholeMatch(of: /video-\d{8}-\d{6}\.mp4/) != nil, "\(video)")
        #expect(run.output.contains("to \(saved.path(video))"), "\(run.output)")
        // About the two seconds before r: a busy machine may lose the window's first frames before
        // the app encodes them (PreRecordTests check the window to the frame).
        let times = try EncoderFixtures.probeFrameTimes(saved.path(video))
        #expect((times.last ?? 0) >= 1.8, "the recording lasts \(times.last ?? 0) s")
    }
}
