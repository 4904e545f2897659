import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// The command-line programs end cleanly every time: 200 short runs, and Ctrl-C/SIGTERM in the
/// middle of a recording. Run by `make test` on their own, after the other suites.
@Suite("Lifecycle: programs exit cleanly", .serialized)
struct LifecycleCLITests {
    let elimage = BuiltProgram(name: "elimage")

    @Test("elimage run 200 times over .mp4, .h264, .y4m and .png outputs: every run exits 0 with its frames")
    func twoHundredRuns() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.y4m")
        try writeTestPattern(to: clip, size: "160x90", frames: 6)
        var failures: [String] = []
        for round in 0..<50 {
            for name in ["o.mp4", "o.h264", "o.y4m", "o.png"] {
                let result = try await elimage.run(["run", clip, "--filter", "grayscale", "-y", "-o", folder.path(name)])
                let frames = name == "o.png" ? 1 : 6
                if result.status != 0 || !result.output.contains("wrote \(frames) frame") {
                    failures.append("run \(round * 4 + failures.count) → \(name): status \(result.status), \(result.errors)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 200 runs ended abnormally: \(failures.prefix(3))")
        #expect(try EncoderFixtures.decodedFrameCount(folder.path("o.mp4")) == 6)
        #expect(try EncoderFixtures.decodedFrameCount(folder.path("o.h264")) == 6)
    }

    @Test("SIGINT and SIGTERM mid-run: status 130/143, 'wrote N frames', and the file holds N whole frames",
          arguments: [(SIGINT, "mp4"), (SIGTERM, "mp4"), (SIGINT, "y4m"), (SIGTERM, "y4m")])
    func signalFinishesOutput(signal: Int32, kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("stopped.\(kind)")
        // A photo repeated 100000 times: an input that is still running when the signal comes.
        let run = try SignalledRun(program: elimage, arguments: [
            "run", MovieFixtures.astronautPNG, "--frames", "100000", "--filter", "grayscale", "-o", output])
        // Written under its temporary name until the run ends.
        try await run.waitUntil(file: output + StagedOutputFile.suffix, holds: kind == "mp4" ? 20_000 : 600_000)
        let result = try await run.stop(with: signal)
        #expect(!FileManager.default.fileExists(atPath: output + StagedOutputFile.suffix), "renamed into place")

        #expect(result.status == 128 + signal, "\(result.errors)")
        let written = result.output.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("wrote ") else { return nil }
            return Int(line.split(separator: " ")[1])
        }
        #expect(written.count == 1, "stdout: \(result.output)")
        let frames = written.first ?? -1
        #expect(frames > 0 && frames < 100_000)
        #expect(try EncoderFixtures.decodedFrameCount(output) == frames)
        #expect(try decodeErrors(output).isEmpty, "ffmpeg reports damage")
        if kind == "y4m" {
            // Whole frames only: the header, then N frames of FRAME\n + 512x512 I420.
            let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? -1
            let header = try String(decoding: Data(contentsOf: URL(fileURLWithPath: output)).prefix(100), as: UTF8.self)
                .split(separator: "\n")[0].utf8.count + 1
            #expect(size == header + frames * (6 + 512 * 512 * 3 / 2))
        }
    }

    @Test("The record example stops on SIGINT with a finished MP4")
    func recordExampleSignal() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("record.mp4")
        let run = try SignalledRun(program: BuiltProgram(name: "record"), arguments: [
            "--test-picture", "--frames", "100000", "--size", "160x90", "--fragment-seconds", "0.2", "-o", output])
        try await run.waitUntil(file: output + StagedOutputFile.suffix, holds: 5_000)
        let result = try await run.stop(with: SIGINT)
        #expect(result.status == 130, "\(result.errors)")
        let finished = result.output.split(separator: "\n").first { $0.hasPrefix("finished ") }
        let frames = finished.flatMap { line in line.split(separator: " ").first { Int($0) != nil }.flatMap { Int($0) } }
        #expect(frames != nil, "stdout: \(result.output)")
        #expect(try EncoderFixtures.decodedFrameCount(output) == frames ?? -1)
    }

    /// What ffmpeg says while decoding the whole file (nothing for an intact file).
    func decodeErrors(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
