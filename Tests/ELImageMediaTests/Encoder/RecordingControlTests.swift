import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// A writer that sleeps on every write: an encoder thread slower than the graph.
final class SlowWriter: MediaFileWriter, @unchecked Sendable {
    // @unchecked Sendable: used by one thread at a time, as MediaFileWriter requires.
    let base: POSIXFileWriter
    let delay: Duration
    var path: String { base.path }
    init(path: String, delay: Duration) throws {
        base = try POSIXFileWriter(path: path)
        self.delay = delay
    }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
        try base.write(bytes)
    }
    func synchronize() throws { try base.synchronize() }
    func close() throws { try base.close() }
    func publish() throws { try base.publish() }
    func remove() { base.remove() }
}

/// A writer whose writes wait until `open()`: an encoder thread stuck on a slow disk.
final class GateWriter: MediaFileWriter, @unchecked Sendable {
    // @unchecked Sendable: the base writer is used by one thread at a time; the gate is a semaphore.
    let base: POSIXFileWriter
    private let gate = DispatchSemaphore(value: 0)
    var path: String { base.path }
    init(_ base: POSIXFileWriter) { self.base = base }
    func open() { gate.signal() }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        gate.wait()
        gate.signal()  // open for good
        try base.write(bytes)
    }
    func synchronize() throws { try base.synchronize() }
    func close() throws { try base.close() }
    func publish() throws { try base.publish() }
    func remove() { base.remove() }
}

/// Start, stop, pause, resume, cancel, limits and the queue policies, while frames flow.
@Suite("VideoEncoder: recording control", .closesContexts)
struct RecordingControlTests {
    let frames: [RGBAImage]
    init() throws {
        frames = try EncoderFixtures.pannedAstronaut(width: 160, height: 120, count: 30)
    }

    @Test("pause and resume: the paused frames are left out, timestamps continue without a gap")
    func pauseAndResume() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder()
        let path = folder.path("paused.mp4")
        try encoder.start(recordingTo: path)
        let times = (0..<30).map { MediaTime(frame: Int64($0), framesPerSecond: 30) }
        try await EncoderFixtures.feed(Array(frames[0..<10]), into: input, on: context, timestamps: Array(times[0..<10]))
        encoder.pause()
        #expect(encoder.currentState == .paused)
        try await EncoderFixtures.feed(Array(frames[10..<20]), into: input, on: context, timestamps: Array(times[10..<20]))
        encoder.resume()
        try await EncoderFixtures.feed(Array(frames[20..<30]), into: input, on: context, timestamps: Array(times[20..<30]))
        let summary = try await encoder.finish()
        #expect(summary.statistics.framesIn == 20)
        #expect(summary.statistics.encoded == 20)

        let probed = try EncoderFixtures.probeFrameTimes(path)
        #expect(probed.count == 20)
        for (index, time) in probed.enumerated() {
            #expect(abs(time - Double(index) / 30) < 1e-6, "frame \(index) at \(time) s: expected \(Double(index) / 30)")
        }
    }

    @Test("stop, then start again: two complete files, each from zero, continuous")
    func stopAndStart() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder()
        let times = (0..<30).map { MediaTime(frame: Int64($0), framesPerSecond: 30) }
        try encoder.start(recordingTo: folder.path("first.mp4"))
        try await EncoderFixtures.feed(Array(frames[0..<12]), into: input, on: context, timestamps: Array(times[0..<12]))
        let first = try await encoder.finish()
        #expect(encoder.currentState == .idle)
        // Frames between two recordings are not recorded.
        try await EncoderFixtures.feed(Array(frames[12..<15]), into: input, on: context, timestamps: Array(times[12..<15]))
        try encoder.start(recordingTo: folder.path("second.mp4"))
        try await EncoderFixtures.feed(Array(frames[15..<30]), into: input, on: context, timestamps: Array(times[15..<30]))
        let second = try await encoder.finish()
        #expect(first.statistics.encoded == 12)
        #expect(second.statistics.encoded == 15)
        for (name, count) in [("first.mp4", 12), ("second.mp4", 15)] {
            let probed = try EncoderFixtures.probeFrameTimes(folder.path(name))
            #expect(probed.count == count, "\(name)")
            #expect(probed.enumerated().allSatisfy { abs($1 - Double($0) / 30) < 1e-6 }, "\(name): \(probed)")
        }
        // stop() again returns the same summary; a second start while recording is refused.
        #expect(try await encoder.finish() == second)
        try encoder.start(recordingTo: folder.path("third.mp4"))
        #expect(throws: ELImageError.self) { try encoder.start(recordingTo: folder.path("fourth.mp4")) }
        await encoder.discard()
    }

    @Test("cancel removes the file, during a recording and before its first frame")
    func cancel() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let encoder = try VideoEncoder()
        let events = eventCollector(for: encoder, on: context)
        let input = RawDataInput()
        input --> encoder
        let path = folder.path("cancelled.mp4")
        try encoder.start(recordingTo: path, container: .mp4(fragmentDuration: .milliseconds(100)))
        try await EncoderFixtures.feed(frames, into: input, on: context)
        await encoder.discard()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(encoder.currentState == .idle)
        #expect(await events.wait { $0.contains { if case .discarded = $0 { true } else { false } } })
        await #expect(throws: ELImageError.self) { try await encoder.finish() }

        let early = folder.path("early.mp4")
        try encoder.start(recordingTo: early)
        #expect(FileManager.default.fileExists(atPath: early + StagedOutputFile.suffix), "written under its temporary name")
        await encoder.discard()
        #expect(!FileManager.default.fileExists(atPath: early))
        #expect(!FileManager.default.fileExists(atPath: early + StagedOutputFile.suffix))
        // A stop without frames also leaves no (empty, unplayable) file.
        let empty = folder.path("empty.mp4")
        try encoder.start(recordingTo: empty)
        await #expect(throws: ELImageError.self) { try await encoder.finish() }
        #expect(!FileManager.default.fileExists(atPath: empty))
    }

    @Test("a duration limit ends the recording cleanly at the limit")
    func durationLimit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder()
        let path = folder.path("limited.mp4")
        try encoder.start(recordingTo: path, limits: RecordingLimits(maximumDuration: .milliseconds(500)))
        try await EncoderFixtures.feed(frames, into: input, on: context)
        let summary = try await encoder.finish()
        #expect(summary.reason == .durationLimit)
        #expect(summary.statistics.encoded == 15)  // 0 ..< 0.5 s at 30 fps
        #expect(try EncoderFixtures.probeFrameTimes(path).count == 15)
    }

    @Test("a size limit ends the recording before the file passes it; the file plays")
    func sizeLimit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        var settings = EncoderSettings()
        settings.rateControl = .constantQuality(10)  // big frames
        let many = try EncoderFixtures.pannedAstronaut(width: 320, height: 240, count: 150)
        // The whole clip's size, then a limit of half of it.
        let input = RawDataInput()
        let whole = try VideoEncoder(settings: settings)
        input --> whole
        try whole.start(recordingTo: folder.path("whole.mp4"), container: .mp4(fragmentDuration: .milliseconds(200)))
        try await EncoderFixtures.feed(many, into: input, on: context)
        let limit = try await whole.finish().statistics.bytesWritten / 2
        input.removeAllTargets()

        let encoder = try VideoEncoder(settings: settings)
        input --> encoder
        let path = folder.path("limited.mp4")
        try encoder.start(recordingTo: path, container: .mp4(fragmentDuration: .milliseconds(200)),
                          limits: RecordingLimits(maximumBytes: limit))
        try await EncoderFixtures.feed(many, into: input, on: context)
        let summary = try await encoder.finish()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        print("size limit \(limit) bytes: file of \(size) bytes, \(summary.statistics.encoded) of \(many.count) frames")
        #expect(summary.reason == .sizeLimit)
        #expect(size <= Int(limit) && size > Int(limit) / 3, "file of \(size) bytes for a limit of \(limit)")
        #expect(summary.statistics.bytesWritten == Int64(size))
        let probed = try EncoderFixtures.probeFrameTimes(path)
        #expect(probed.count == summary.statistics.encoded)
        #expect(summary.statistics.encoded > 0 && summary.statistics.encoded < many.count)
        #expect(summary.statistics.framesIn == summary.statistics.encoded + summary.statistics.dropped)
    }

    @Test("queue policy .wait: a slow encoder slows the source down, nothing is dropped")
    func waitPolicy() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        var settings = EncoderSettings()
        settings.tune = "zerolatency"
        settings.queueCapacity = 2
        settings.whenQueueFull = .wait
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(settings)
        let path = folder.path("waited.h264")
        try encoder.start(writingTo: try SlowWriter(path: path, delay: .milliseconds(15)), container: .annexB())
        let started = ContinuousClock.now
        try await EncoderFixtures.feed(frames, into: input, on: context)
        let feeding = ContinuousClock.now - started
        let statistics = encoder.statistics
        #expect(statistics.queueHighWater <= 2)
        // Each frame's write takes 15 ms and at most 2 frames wait in the queue (one more in the
        // encoder's hands): the source was held back to the encoder's pace.
        #expect(feeding >= .milliseconds(15 * (frames.count - 4)), "fed \(frames.count) frames in \(feeding)")
        let summary = try await encoder.finish()
        #expect(summary.statistics.dropped == 0)
        #expect(summary.statistics.encoded == frames.count)
        #expect(try EncoderFixtures.decodedFrameCount(path) == frames.count)
    }

    @Test("queue policy .drop: a live source never waits, even for a stuck encoder; every drop is counted")
    func dropPolicy() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        var settings = EncoderSettings()
        settings.tune = "zerolatency"  // a packet per frame: the first write blocks the encoder thread
        settings.queueCapacity = 1
        settings.whenQueueFull = .drop
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(settings)
        let path = folder.path("dropped.h264")
        let gate = GateWriter(try POSIXFileWriter(path: path))
        try encoder.start(writingTo: gate, container: .annexB())
        let live = Array(frames.prefix(20))
        let fed = Collector<Bool>()
        let feeding = Task {
            try await EncoderFixtures.feed(live, into: input, on: context)
            fed.append(true)
        }
        // Every frame goes through while the encoder's first write is stuck: the source never waited.
        let neverWaited = await fed.waitForCount(1, timeout: .seconds(60))
        gate.open()
        try await feeding.value
        #expect(neverWaited, "the source waited for a stuck encoder")
        let summary = try await encoder.finish()
        let statistics = summary.statistics
        #expect(statistics.framesIn == live.count)
        #expect(statistics.dropped >= live.count - 3, "\(statistics)")  // one in x264's hands, one queued
        #expect(statistics.droppedQueueFull == statistics.dropped)
        #expect(statistics.encoded + statistics.dropped == statistics.framesIn)
        #expect(try EncoderFixtures.decodedFrameCount(path) == statistics.encoded)
    }
}
