import ELImage
@testable import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// The one readback path (`ReadbackSink`) with a writer of the test's own: order, the drop
/// policy's counts, a failing writer, and a close that joins the worker.
@Suite("Readback sink with a test writer", .closesContexts)
struct ReadbackSinkTests {
    /// What the test writer saw and did.
    struct Log: Sendable {
        var values: [UInt8] = []
        var times: [Int64] = []
        var finished = 0
        var published = 0
        var salvaged: [ELImageError] = []
        var discarded = 0
    }

    /// Writes each frame's first byte to a staged file; fails at frame `failAt`; waits at each
    /// frame until `gate` is open.
    final class TestWriter: FrameWriter {
        let file: StagedOutputFile
        let log: Locked<Log>
        let failAt: Int?
        let gate: Gate
        private var bytes: [UInt8] = []

        init(path: String, log: Locked<Log>, failAt: Int?, gate: Gate) {
            file = StagedOutputFile(destination: path)
            self.log = log
            self.failAt = failAt
            self.gate = gate
        }

        func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
            gate.pass()
            if number == failAt { throw ELImageError.invalidState(node: "TestWriter", reason: "refused on purpose") }
            bytes.append(buffer.data[0])
            try Data(bytes).write(to: URL(fileURLWithPath: file.temporary))
            log.withLock { log in
                log.values.append(buffer.data[0])
                log.times.append(time)
            }
            return .more
        }
        func finish() { log.withLock { $0.finished += 1 } }
        func publish() throws {
            try file.publish()
            log.withLock { $0.published += 1 }
        }
        func salvage(after error: ELImageError) {
            log.withLock { $0.salvaged.append(error) }
            if bytes.isEmpty { file.discard() } else { try? file.publish() }
        }
        func discard() {
            log.withLock { $0.discarded += 1 }
            file.discard()
        }
    }

    struct Harness {
        let context: RenderContext
        let sink: ReadbackSink
        let log = Locked(Log())
        let gate: Gate
        let endings = Locked<[ReadbackSink.Ending]>([])
        let path: String
        let folder: TemporaryFolder

        init(capacity: Int, policy: EncoderSettings.QueueFullPolicy, failAt: Int? = nil,
             open gateOpen: Bool = true) throws {
            context = try TestContexts.make()
            folder = try TemporaryFolder()
            path = folder.path("out.bin")
            let (log, gate, endings, path) = (log, Gate(isOpen: gateOpen), endings, path)
            self.gate = gate
            sink = ReadbackSink(
                .init(path: path, threadName: "test-sink", format: .rgba, chromaLocation: .left, capacity: capacity,
                      whenQueueFull: policy),
                open: { _ in TestWriter(path: path, log: log, failAt: failAt, gate: gate) },
                onEnd: { result, _ in if case let .success(ending) = result { endings.withLock { $0.append(ending) } } })
        }

        /// Feeds `count` frames, ends the run with `end` (finish or cancel) and waits for it.
        func run(_ count: Int, then end: (ReadbackSink) -> Void = { $0.requestFinish() }) async throws
            -> Result<ReadbackSink.Ending, ELImageError> {
            try await feed(count)
            end(sink)
            return await sink.outcome()
        }

        /// Takes `count` frames of gray values 0, 10, 20, ... stamped 100, 101, ...
        func feed(_ count: Int) async throws { try await feed(0..<count) }

        /// Takes frames `indices` of gray values 10 × index stamped 100 + index.
        func feed(_ indices: Range<Int>) async throws {
            for index in indices {
                let value = UInt8(index * 10)
                let buffer = try PixelBuffer(format: .rgba, width: 8, height: 4, data: [UInt8](repeating: value, count: 8 * 4 * 4))
                try await context.perform { [sink] context in
                    let frame = try context.makeFrame(from: buffer)
                    let owner = NSObject()
                    try sink.take(frame, time: Int64(100 + index), owner: owner, in: context)
                }
            }
        }
    }

    @Test("frames are written in order with their times; finish publishes and joins the worker")
    func order() async throws {
        let harness = try Harness(capacity: 2, policy: .wait)
        defer { harness.folder.remove() }
        #expect(try await harness.run(12).get() == .finished)
        #expect(!harness.context.runningThreadNames.contains("ELImage.test-sink"), "the worker is joined")
        let log = harness.log.withLock { $0 }
        #expect(log.values == (0..<12).map { UInt8($0 * 10) })
        #expect(log.times == (0..<12).map { Int64(100 + $0) })
        #expect((log.finished, log.published) == (1, 1))
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: harness.path))) == log.values)
        let counts = harness.sink.counts
        #expect((counts.accepted, counts.rejected, counts.written, counts.lost) == (12, 0, 12, 0))
        #expect(harness.endings.withLock { $0 } == [.finished])
    }

    @Test("the drop policy drops while the writer is busy and counts every frame")
    func dropPolicy() async throws {
        let harness = try Harness(capacity: 1, policy: .drop, open: false)
        defer { harness.folder.remove() }
        try await harness.feed(0..<1)
        #expect(await harness.gate.waitUntilWaiting())  // the writer is held at its first frame
        try await harness.feed(1..<10)  // one more gets in (the queue holds one), the rest are dropped
        harness.gate.open()
        harness.sink.requestFinish()
        #expect(try await harness.sink.outcome().get() == .finished)
        let counts = harness.sink.counts
        #expect(counts.accepted + counts.rejected == 10)
        #expect(counts.accepted == 2)
        #expect(counts.rejected == 8)
        #expect(counts.written == counts.accepted)
        #expect(counts.highWater == 1)
        #expect(harness.log.withLock { $0.values }.first == 0, "the first frame got in")
    }

    @Test("a writer error ends the run with the error and frame number, reported once; the frames before are kept, none leaves no file",
          arguments: [0, 3])
    func writerError(failAt: Int) async throws {
        let harness = try Harness(capacity: 8, policy: .wait, failAt: failAt)
        defer { harness.folder.remove() }
        let failures = failureCollector(on: harness.context)
        guard case let .failure(.malformedMedia(file, frame, reason)) = try await harness.run(6) else {
            Issue.record("no failure at frame \(failAt)")
            return
        }
        #expect(file == harness.path)
        #expect(frame == failAt)
        #expect(reason.contains("refused on purpose"))
        #expect(failures.count == 1)
        #expect(harness.log.withLock { $0.salvaged.count } == 1)
        #expect(!harness.context.runningThreadNames.contains("ELImage.test-sink"))
        #expect(!FileManager.default.fileExists(atPath: StagedOutputFile(destination: harness.path).temporary))
        let kept = (0..<failAt).map { UInt8($0 * 10) }
        if kept.isEmpty {
            #expect(!FileManager.default.fileExists(atPath: harness.path))
        } else {
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: harness.path))) == kept)
        }
        let counts = harness.sink.counts
        #expect(counts.written == failAt)
        #expect(counts.lost == counts.accepted - failAt, "what got in and was not written is counted lost")
    }

    @Test("cancel removes the output; a run without frames ends empty without a thread")
    func cancelAndEmpty() async throws {
        let harness = try Harness(capacity: 4, policy: .wait)
        defer { harness.folder.remove() }
        #expect(try await harness.run(3, then: { $0.requestCancel() }).get() == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: harness.path))
        #expect(!FileManager.default.fileExists(atPath: StagedOutputFile(destination: harness.path).temporary))

        let empty = try Harness(capacity: 4, policy: .wait)
        defer { empty.folder.remove() }
        #expect(try await empty.run(0).get() == .empty)
        #expect(empty.endings.withLock { $0 } == [.empty])
    }
}
