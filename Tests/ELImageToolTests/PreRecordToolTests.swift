import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run … --pre-record`: nothing is written until SIGUSR1, and the file then starts the
/// pre-record time before it; no signal, no file.
@Suite("elimage run --pre-record")
struct PreRecordToolTests {
    let elimage = BuiltProgram(name: "elimage")
    let bunny = Repository.path("Examples/Media/bigbuckbunny.mp4")

    @Test("SIGUSR1 starts the file one second before it: its first frame is the input's frame at the time said")
    func signalTriggers() async throws {
        let output = try TemporaryFolder()
        defer { output.remove() }
        // A minute of flat frames whose luma is their number (28 + n mod 200), paced as a camera:
        // the program's own time goes on whenever the test's signal comes (a test starved of
        // threads beside others can take tens of seconds to send it).
        let clip = output.path("numbered.mp4")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                               "color=c=black:s=160x120:r=25:d=60,format=gray,geq=lum='28+mod(N\\,200)':cb=128:cr=128",
                               "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "12", clip])
        let path = output.path("event.mp4")
        let run = try SignalledRun(program: elimage, arguments: ["run", clip, "--realtime", "-o", path, "--pre-record", "1s"])
        defer { run.folder.remove() }
        #expect(try await run.waitUntilSaid("pre-recording: kill -USR1 \(run.process.processIdentifier) starts the file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.url.path) == ["numbered.mp4"])
        // Any moment while the clip plays will do: the program says where the file starts.
        try await Task.sleep(for: .milliseconds(1500))
        kill(run.process.processIdentifier, SIGUSR1)
        #expect(try await run.waitUntilSaid("SIGUSR1: recording from"), "\(run.output) \(run.errors)")
        let stopped = try await run.stop(with: SIGINT)  // Ctrl-C finishes the file (or the minute ended)
        #expect(stopped.status == 130 || stopped.status == 0, "\(stopped.errors)")

        #expect(run.output.contains(/pre-record: at most \d+\.\d MB in memory, \d+ frames let go before the trigger/), "\(run.output)")
        let said = try #require(run.output.firstMatch(of: /SIGUSR1: recording from (\d+\.\d+) s/), "\(run.output)")
        let start = try #require(Double(said.1))
        #expect(start >= 0.4, "the file starts at \(start) s")
        // The file's first frame is the input's frame at that time (its luma says which). Real-time
        // pacing drops frames that come late on a busy machine (a test run beside others), so it
        // is the last frame delivered at or before that time: a few earlier at most. (Without
        // drops the start is exact to the frame: PreRecordTests.)
        let startFrame = Int((start * 25).rounded())
        let first = try EncoderFixtures.decode(path, pixelFormat: "gray", extra: ["-frames:v", "1"])
        let number = Int(first[first.count / 2]) - 28
        #expect(number <= startFrame % 200 + 1 && number >= startFrame % 200 - 12,
                "the file starts with frame \(number), the program said \(startFrame)")
        #expect(try EncoderFixtures.probeFrameTimes(path).first.map { abs($0) < 1e-6 } == true)
    }

    @Test("no signal: nothing is written, and the run says why")
    func noSignal() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await elimage.run(["run", bunny, "-o", folder.path("never.mp4"), "--pre-record", "2s"])
        #expect(result.status == 1)
        #expect(result.errors.contains("waited for its trigger, which never came"), "\(result.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test("usage errors: not a duration, not a video output")
    func usageErrors() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (arguments, words) in [
            (["-o", folder.path("a.mp4"), "--pre-record", "5MB"], "give a duration (5s, 500ms, 1m)"),
            (["-o", folder.path("a.y4m"), "--pre-record", "5s"], "only a video recording"),
        ] {
            let result = try await elimage.run(["run", bunny] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors.contains(words), "\(arguments): \(result.errors)")
        }
    }
}
