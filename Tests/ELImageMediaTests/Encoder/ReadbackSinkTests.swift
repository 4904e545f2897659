import ELImage
@testable import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// The one readback path (`ReadbackSink`) with a writer of the test's own: order, the drop
/// policy's counts, a failing writer, and a close that joins the worker; each with the readback
/// on the worker's shared context and on the render thread.
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
        /// Where each frame's bytes were, in order.
        var addresses: [UInt] = []
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
            let address = buffer.data.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            log.withLock { $0.addresses.append(address) }
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
             open gateOpen: Bool = true, readback: ReadbackPlacement) throws {
            context = try TestContexts.make(readback: readback)
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

    static let placements: [ReadbackPlacement] = [.sharedContextWorker, .renderThread]

    @Test("frames are written in order with their times; finish publishes and joins the worker", arguments: placements)
    func order(readback: ReadbackPlacement) async throws {
        let harness = try Harness(capacity: 2, policy: .wait, readback: readback)
        defer { harness.folder.remove() }
        #expect(try await harness.run(12).get() == .finished)
        #expect(!harness.context.runningThreadNames.contains("ELImage.test-sink"), "the worker is joined")
        let log = harness.log.withLock { $0 }
        #expect(log.values == (0..<12).map { UInt8($0 * 10) })
        #expect(log.times == (0..<12).map { Int64(100 + $0) })
        #expect((log.finished, log.published) == (1, 1))
        // The sink reads into the buffers it wrote before (at most capacity + 2 are in use): a
        // buffer still shared when it is read into would be copied to a new one each frame, as
        // when the queue kept popped frames. Two more allow for a reference that lingers a moment
        // on the thread that handed the frame over, which makes one copy.
        #expect(Set(log.addresses).count <= 2 + 2 + 2, "\(Set(log.addresses).count) buffers for 12 frames")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: harness.path))) == log.values)
        let counts = harness.sink.counts
        #expect((counts.accepted, counts.rejected, counts.written, counts.lost) == (12, 0, 12, 0))
        #expect(harness.endings.withLock { $0 } == [.finished])
        #expect(harness.context.sharedContextsMade == (readback == .sharedContextWorker ? 1 : 0),
                "a GL context for the worker only when it reads back")
        #expect(harness.sink.readsBackOnRenderThread == (readback == .renderThread))
    }

    @Test("the context's automatic placement reads back on the render thread on a software renderer, else on the worker")
    func automaticPlacement() async throws {
        let harness = try Harness(capacity: 2, policy: .wait, readback: .automatic)
        defer { harness.folder.remove() }
        let software = harness.context.info.isSoftwareRenderer
        #expect(harness.context.readbackPlacement == (software ? .renderThread : .sharedContextWorker),
                "\(harness.context.info.renderer)")
        #expect(try await harness.run(5).get() == .finished)
        #expect(harness.log.withLock { $0.values } == (0..<5).map { UInt8($0 * 10) })
        #expect(harness.context.sharedContextsMade == (software ? 0 : 1))
    }

    @Test("on the render thread, a held frame with no frame after it reaches the writer without a finish")
    func heldFrameIsNotKept() async throws {
        let harness = try Harness(capacity: 4, policy: .wait, open: false, readback: .renderThread)
        defer { harness.folder.remove() }
        try await harness.feed(0..<2)  // held until two more frames are packed, or the renderer is idle
        #expect(await harness.gate.waitUntilWaiting(timeout: .seconds(10)), "the poll did not hand the held frame over")
        harness.gate.open()
        #expect(await waitUntil { harness.log.withLock { $0.values.count } == 2 }, "the second held frame was kept")
        #expect(harness.log.withLock { $0.values } == [0, 10])
        #expect(try await harness.run(0).get() == .finished)
    }

    @Test("the drop policy drops while the writer is busy and counts every frame", arguments: placements)
    func dropPolicy(readback: ReadbackPlacement) async throws {
        let harness = try Harness(capacity: 1, policy: .drop, open: false, readback: readback)
        defer { harness.folder.remove() }
        // On the render thread the first frame is held until its fence signals: with no frame after
        // it, the render thread's poll reads it and hands it over.
        try await harness.feed(0..<1)
        #expect(await harness.gate.waitUntilWaiting())  // the writer is held at its first frame
        try await harness.feed(1..<10)  // one more gets in (the queue holds one), the rest are dropped
        // On the render thread, so that the frames still held there are offered while the writer is held.
        try await harness.context.perform { [sink = harness.sink] _ in sink.requestFinish() }
        harness.gate.open()
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
          arguments: [0, 3], placements)
    func writerError(failAt: Int, readback: ReadbackPlacement) async throws {
        let harness = try Harness(capacity: 8, policy: .wait, failAt: failAt, readback: readback)
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
        // The render thread holds frames until their fences signal: let go when the failure comes
        // before they are read.
        #expect(readback == .renderThread || counts.letGoUnqueued == 0)
        #expect(counts.lost == counts.accepted - failAt + counts.letGoUnqueued,
                "what got in and was not written is counted lost, and the frame let go before it got in")
    }

    @Test("cancel removes the output; a run without frames ends empty without a thread", arguments: placements)
    func cancelAndEmpty(readback: ReadbackPlacement) async throws {
        let harness = try Harness(capacity: 4, policy: .wait, readback: readback)
        defer { harness.folder.remove() }
        #expect(try await harness.run(3, then: { $0.requestCancel() }).get() == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: harness.path))
        #expect(!FileManager.default.fileExists(atPath: StagedOutputFile(destination: harness.path).temporary))

        let empty = try Harness(capacity: 4, policy: .wait, readback: readback)
        defer { empty.folder.remove() }
        #expect(try await empty.run(0).get() == .empty)
        #expect(empty.endings.withLock { $0 } == [.empty])
    }
}
