import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// One process makes, runs and closes 100 pipelines; what it holds must come back to where it
/// started. Counts are process-wide, so `make test` runs the `Lifecycle` suites on their own,
/// after the others (see the Makefile).
@Suite("Lifecycle: 100 pipelines in one process", .serialized)
struct LifecycleSoakTests {
    /// Threads, open files and resident memory of this process.
    struct Usage: CustomStringConvertible {
        let threads: Int
        let files: Int
        let residentBytes: Int

        static func now() throws -> Usage {
            let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
            let files = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
            let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
            let pages = statm.count > 1 ? Int(statm[1]) ?? 0 : 0
            return Usage(threads: threads, files: files, residentBytes: pages * Int(sysconf(Int32(_SC_PAGESIZE))))
        }

        var description: String { "\(threads) threads, \(files) files, \(residentBytes >> 20) MiB resident" }
    }

    /// Context + source + filter + encoder sink: 4 frames into an MP4, then close.
    func pipeline(_ index: Int, in folder: TemporaryFolder, frames: [RGBAImage]) async throws {
        let path = folder.path("soak-\(index % 4).mp4")
        try await withRenderContext { context in
            let input = RawDataInput()
            let encoder = try VideoEncoder()
            input --> Grayscale() --> encoder
            try encoder.start(recordingTo: path)
            try await EncoderFixtures.feed(frames, into: input, on: context)
            try await context.perform { context in input.finish(in: context) }
            let summary = try await encoder.finish()
            #expect(summary.statistics.encoded == frames.count)
        }
    }

    @Test("Threads, open files and memory return to their starting level after 100 pipelines")
    func hundredPipelines() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let frames = try EncoderFixtures.pannedAstronaut(width: 64, height: 48, count: 4)
        // Warm-up: libraries loaded, Mesa's and malloc's caches filled (the first 100 grow the
        // resident size by about 75 MiB on llvmpipe, the next 300 by under 2 MiB each hundred).
        for index in 0..<100 { try await pipeline(index, in: folder, frames: frames) }
        // Two measured hundreds: a leak grows both; malloc taking a new arena for a thread grows
        // the resident size once, by up to 16 MiB of chunks it keeps (seen in 2 runs of about 30).
        var usage = [try Usage.now()]
        for _ in 0..<2 {
            for index in 0..<100 { try await pipeline(index, in: folder, frames: frames) }
            usage.append(try Usage.now())
        }
        let (before, after) = (usage[1], usage[2])
        print("100 pipelines, twice: \(usage.map(\.description).joined(separator: " → "))")
        #expect(after.threads <= before.threads + 1, "threads: \(before) → \(after)")
        #expect(after.files <= before.files + 1, "open files: \(before) → \(after)")
        // 1-4 MiB more a hundred is typical here; 16 allows for AddressSanitizer's quarantine in
        // `make sanitize`.
        let growth = zip(usage, usage.dropFirst()).map { $1.residentBytes - $0.residentBytes }
        #expect(growth.min() ?? 0 <= 16 << 20, "memory: \(usage.map(\.description).joined(separator: " → "))")
        #expect(try EncoderFixtures.decodedFrameCount(folder.path("soak-3.mp4")) == frames.count)
    }
}
