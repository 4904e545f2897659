import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run … --pre-record`: nothing is written until SIGUSR1, and the file then starts the
/// pre-record time before it, with the movie's sound; no signal, no file.
@Suite("elimage run --pre-record")
struct PreRecordToolTests {
    let elimage = BuiltProgram(name: "elimage")
    let bunny = Repository.path("Examples/Media/bigbuckbunny.mp4")

    @Test("SIGUSR1 starts the file one second before it: its first frame is the movie's frame at the time said")
    func signalTriggers() async throws {
        let output = try TemporaryFolder()
        defer { output.remove() }
        let path = output.path("event.mp4")
        // Paced as a camera: 5.28 s of frames, the signal comes while they flow.
        let run = try SignalledRun(program: elimage, arguments: ["run", bunny, "--realtime", "-o", path, "--pre-record", "1s"])
        defer { run.folder.remove() }
        #expect(try await run.waitUntilSaid("pre-recording: kill -USR1 \(run.process.processIdentifier) starts the file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.url.path).isEmpty)
        // Any moment while the movie plays will do: the program says where the file starts.
        try await Task.sleep(for: .milliseconds(2500))
        kill(run.process.processIdentifier, SIGUSR1)
        #expect(try await run.waitUntilSaid("SIGUSR1: recording from"))
        #expect(await run.waitForExit())
        #expect(run.process.terminationStatus == 0, "\(run.errors)")

        let said = try #require(run.output.firstMatch(of: /SIGUSR1: recording from (\d+\.\d+) s/), "\(run.output)")
        let start = try #require(Double(said.1))
        #expect(start >= 0.5 && start <= 4.5, "the file starts at \(start) s")
        // The file's first frame is the movie's frame at that time (25 fps), to the frame: the
        // source frame it is closest to among those around it.
        let startFrame = Int((start * 25).rounded())
        let first = try EncoderFixtures.decode(path, pixelFormat: "rgba", extra: ["-frames:v", "1"])
        let candidates = try EncoderFixtures.bunnyFrames(min(132, startFrame + 4))
        let nearby = max(0, startFrame - 3)..<min(candidates.count, startFrame + 4)
        let best = try #require(nearby.max { EncoderFixtures.psnr(candidates[$0].pixels, first) < EncoderFixtures.psnr(candidates[$1].pixels, first) })
        #expect(abs(best - startFrame) <= 1, "the file's first frame looks like movie frame \(best), the program said \(startFrame)")
        #expect(try EncoderFixtures.probeFrameTimes(path).first.map { abs($0) < 1e-6 } == true)
        // The movie's sound comes along from the file's start.
        let audio = try AudioProbe.packetEnds(path, kind: "a")
        #expect(audio.count > 20, "\(audio.count) sound packets")
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
