import ELImageTestSupport
import Foundation
import Testing

/// The input budget through the CLI: what a file's header claims is checked before memory is
/// given to it, and the options that raise the limits do.
@Suite("elimage input budget")
struct InputBudgetToolTests {
    let elimage = BuiltProgram(name: "elimage")

    /// Runs `elimage arguments` under python3, which reports the child's peak resident memory
    /// (getrusage's ru_maxrss) in MiB on its standard output.
    private func runMeasured(_ arguments: [String]) async throws -> (status: Int32, peakMiB: Double, errors: String) {
        let script = """
            import resource, subprocess, sys
            status = subprocess.run(sys.argv[1:]).returncode
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
            sys.exit(status)
            """
        let result = try await BuiltProgram(systemTool: "python3").run(["-c", script, elimage.url.path] + arguments)
        let peak = Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
        try #require(peak != nil, "python3 printed no peak memory: \(result.output) \(result.errors)")
        return (result.status, peak ?? 0, result.errors)
    }

    @Test("A 1.7 KB MP4 whose fragment claims 83 million samples is refused within the block limit, not read with gigabytes")
    func fragmentClaimingMillions() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let movie = Repository.path("Tests/Fuzz/Regressions/movie/oom-trun-claims-83M-samples.mp4")
        let run = try await runMeasured(["run", movie, "-o", folder.path("out.y4m")])
        #expect(run.status == 1, "\(run.errors)")
        #expect(run.errors.contains("asked for more memory than the limit of 512 MiB for one block"), "\(run.errors)")
        #expect(run.errors.contains("elimage --max-allocation"), "\(run.errors)")
        // Without the limit FFmpeg allocated 2.7 GB for the sample index before it failed.
        #expect(run.peakMiB < 600, "peak \(run.peakMiB) MiB")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out.y4m")))
    }

    @Test("--max-pixels refuses a picture one pixel over it, and lets one at it through")
    func pixelLimitOption() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let photo = Repository.path("Examples/Media/grace_hopper.jpg")  // 512x600: 307200 pixels
        let refused = try await elimage.run(["run", photo, "--max-pixels", "307199", "-o", folder.path("refused.png")])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("its JPEG header gives a 512x600 picture, more than the limit of 307199 pixels a picture"),
                "\(refused.errors)")
        #expect(refused.errors.contains("raise the limit (elimage --max-pixels"), "\(refused.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("refused.png")))
        let taken = try await elimage.run(["run", photo, "--max-pixels", "307200", "-o", folder.path("taken.png")])
        #expect(taken.status == 0, "\(taken.errors)")
        #expect(FileManager.default.fileExists(atPath: folder.path("taken.png")))
    }

    @Test("--max-pixels holds a movie too, at its stream's header")
    func moviePixelLimit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bunny = Repository.path("Examples/Media/bigbuckbunny.mp4")  // 1280x720
        let run = try await elimage.run(["run", bunny, "--max-pixels", "921599", "-o", folder.path("out.y4m")])
        #expect(run.status == 1)
        #expect(run.errors.contains("its h264 stream header gives a 1280x720 picture, more than the limit of 921599 pixels a picture; if the picture"),
                "\(run.errors)")
    }

    @Test("A PNG whose header claims 12000x12000 is refused by default before its data is read")
    func pngBomb() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let png = folder.path("bomb.png")
        try Data(ImageHeaders.png(width: 12000, height: 12000)).write(to: URL(fileURLWithPath: png))
        let run = try await elimage.run(["run", png, "-o", folder.path("out.png")])
        #expect(run.status == 1)
        #expect(run.errors.contains("its PNG header gives a 12000x12000 picture, more than the limit of 67108864 pixels a picture (8192x8192)"),
                "\(run.errors)")
    }
}
