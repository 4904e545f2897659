import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// A writer that behaves like a disk that fills up: it writes what fits in `capacity` bytes and
/// then fails with `ENOSPC` (the seam tests inject through `MediaFileWriter`).
final class FillingDiskWriter: MediaFileWriter, @unchecked Sendable {
    // @unchecked Sendable: used by one thread at a time, as MediaFileWriter requires.
    let base: POSIXFileWriter
    let capacity: Int64
    private(set) var written: Int64 = 0
    var path: String { base.path }

    init(path: String, capacity: Int64) throws {
        base = try POSIXFileWriter(path: path)
        self.capacity = capacity
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        let room = Int(max(0, capacity - written))
        if bytes.count > room {
            if room > 0 { try base.write(UnsafeRawBufferPointer(rebasing: bytes[0..<room])) }
            written += Int64(room)
            throw ELImageError.io(file: path, operation: "write to", errno: ENOSPC, hint: "the test's disk is full")
        }
        try base.write(bytes)
        written += Int64(bytes.count)
    }

    func synchronize() throws { try base.synchronize() }
    func close() throws { try base.close() }
    func publish() throws { try base.publish() }
    func remove() { base.remove() }
}

/// What survives a killed process, a full disk, an unwritable path and an encoder failure.
@Suite("VideoEncoder: crash safety and failures", .closesContexts)
struct CrashSafetyTests {
    /// The `record` example, built next to the test bundle.
    static func recordExecutable() -> URL? {
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                          Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        return candidates.map { $0.appendingPathComponent("record") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test("kill -9 while recording: the MP4.partial plays up to the last fragment written; a file at the path is untouched")
    func killedRecording() async throws {
        let executable = try #require(Self.recordExecutable(),
                                      "the record example is not built next to the tests: run `swift build` (all products) first")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let destination = folder.path("killed.mp4")
        let existing = Data("an earlier recording\n".utf8)
        try existing.write(to: URL(fileURLWithPath: destination))
        // The recording goes to a temporary name until it ends: that is what a crash leaves.
        let path = destination + StagedOutputFile.suffix
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--test-picture", "--frames", "100000", "--size", "320x240", "--fragment-seconds", "0.2", "-o", destination]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()

        // Read progress lines until the fourth fragment is reported, then kill the process hard.
        // "fragment N written: F frames, T s, B bytes"
        var text = "", completed = 0, fragments = 0
        var reported: [(frames: Int, bytes: Int)] = []
        let reader = pipe.fileHandleForReading
        let deadline = ContinuousClock.now + .seconds(60)
        while fragments < 4, ContinuousClock.now < deadline {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            reported = []
            for line in text.split(separator: "\n") where line.hasPrefix("fragment ") && line.hasSuffix(" bytes") {
                let words = line.split(separator: " ")
                if words.count > 7, let index = Int(words[1]), let frames = Int(words[3]), let bytes = Int(words[7]) {
                    (fragments, completed) = (max(fragments, index), max(completed, frames))
                    reported.append((frames, bytes))
                }
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        try #require(fragments >= 4, "the recording reported \(fragments) fragments: \(text)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == existing, "the file at the path is as it was")

        // ffprobe reads the file; every frame of the completed fragments decodes, in order.
        let stream = try EncoderFixtures.probeStream(path)
        #expect(stream["codec_name"] == "h264")
        let times = try EncoderFixtures.probeFrameTimes(path)
        print("kill -9 after fragment \(fragments) (\(completed) frames reported complete): \(times.count) frames decode")
        #expect(times.count >= completed)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "timestamps increase")
        #expect(abs((times.first ?? -1) - 0) < 1e-9)
        #expect(try EncoderFixtures.decodedFrameCount(path) >= completed)

        // Each fragment was on disk, whole, when it was reported: the file cut at the size
        // reported then decodes that many frames (a crash at that moment would have kept them).
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for (index, fragment) in reported.enumerated() {
            let cut = folder.path("cut\(index).mp4")
            try bytes.prefix(fragment.bytes).write(to: URL(fileURLWithPath: cut))
            #expect(try EncoderFixtures.decodedFrameCount(cut) == fragment.frames, "cut after fragment \(index + 1)")
        }
    }

    @Test("a full disk: the error reaches the handler with ENOSPC, the flushed fragments play, the graph runs on")
    func fullDisk() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let encoder = try VideoEncoder()
        let events = eventCollector(for: encoder, on: context)
        let (collector, images) = imageCollector()
        let input = RawDataInput()
        input --> encoder
        input --> collector
        let frames = try EncoderFixtures.pannedAstronaut(width: 320, height: 240, count: 60)
        // The disk fills three quarters of the way through the file the clip makes.
        let sizing = RawDataInput()
        let whole = try VideoEncoder()
        sizing --> whole
        try whole.start(recordingTo: folder.path("whole.mp4"), container: .mp4(fragmentDuration: .milliseconds(200)))
        try await EncoderFixtures.feed(frames, into: sizing, on: context)
        let capacity = try await whole.finish().statistics.bytesWritten * 3 / 4

        let path = folder.path("full.mp4")
        try encoder.start(writingTo: try FillingDiskWriter(path: path, capacity: capacity),
                          container: .mp4(fragmentDuration: .milliseconds(200)))
        try await EncoderFixtures.feed(frames, into: input, on: context)

        await #expect(throws: ELImageError.self) { try await encoder.finish() }
        #expect(await failures.waitForCount(1))
        let failure = try #require(failures.values.first)
        guard case let .io(file, _, code, _)? = failure.error as? ELImageError else {
            Issue.record("expected an I/O error, got \(failure.error)")
            return
        }
        #expect(code == ENOSPC)
        #expect(file == path)
        #expect(failure.node.hasPrefix("VideoEncoder"))
        // The rest of the graph kept running: every frame reached the other sink.
        #expect(images.count == frames.count)

        await context.close()
        let completed = await events.all().compactMap { event -> Int? in
            if case let .fragmentWritten(fragment) = event { return fragment.framesCompleted }
            return nil
        }.max() ?? 0
        #expect(completed > 0)
        let statistics = encoder.statistics
        #expect(statistics.framesIn == statistics.encoded + statistics.dropped)
        let decodable = try EncoderFixtures.decodedFrameCount(path)
        print("full disk at \(capacity) bytes: \(completed) frames in flushed fragments, \(decodable) decode")
        #expect(decodable >= completed)
    }

    @Test("/dev/full: ENOSPC from the real write(2)")
    func devFull() async throws {
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder()
        try encoder.start(recordingTo: "/dev/full", container: .mp4(fragmentDuration: .milliseconds(100)))
        let frames = try EncoderFixtures.pannedAstronaut(width: 160, height: 120, count: 20)
        try await EncoderFixtures.feed(frames, into: input, on: context)
        do {
            try await encoder.finish()
            Issue.record("writing to /dev/full succeeded")
        } catch let ELImageError.io(file, _, code, hint) {
            #expect(file == "/dev/full")
            #expect(code == ENOSPC)
            #expect(hint.contains("full"))
        }
        #expect(await failures.waitForCount(1))
        #expect(FileManager.default.fileExists(atPath: "/dev/full"))  // a device is never removed
    }

    @Test("an unwritable path fails at start with errno")
    func unwritablePath() throws {
        let encoder = try VideoEncoder()
        #expect(throws: ELImageError.io(file: "/no/such/folder/clip.mp4", operation: "create", errno: ENOENT,
                                        hint: "check that the folder exists")) {
            try encoder.start(recordingTo: "/no/such/folder/clip.mp4")
        }
        #expect(encoder.currentState == .idle)
    }

    @Test("an encoder error (odd picture size) is reported; the graph runs on and no empty file is left")
    func encoderError() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let encoder = try VideoEncoder()
        let (collector, images) = imageCollector()
        let input = RawDataInput()
        input --> encoder
        input --> collector
        let path = folder.path("odd.mp4")
        try encoder.start(recordingTo: path)
        let frames = try EncoderFixtures.pannedAstronaut(width: 161, height: 121, count: 5)
        try await EncoderFixtures.feed(frames, into: input, on: context)
        await #expect(throws: ELImageError.self) { try await encoder.finish() }
        #expect(await failures.waitForCount(1))
        #expect(images.count == frames.count)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
