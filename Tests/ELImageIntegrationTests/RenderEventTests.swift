import Dispatch
import ELImage
import ELImageCamera
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

// The render context's event stream (failures with their node, drops, ends, close) and the end
// verbs it reports: finish() drains, close() stops.

@Suite("Render context events", .closesContexts, .timeLimit(.minutes(2)))
struct RenderEventTests {
    @Test("A failure is one event, in order, with its node; the error handler hears what it heard before")
    func failuresOnceInOrder() async throws {
        let context = try TestContexts.make()
        let events = context.events
        let heard = Locked<[NodeFailure]>([])
        context.setErrorHandler { failure in heard.withLock { $0.append(failure) } }
        let source = EventSource(policy: .backPressure(capacity: 2))
        let sink = FailingSink(failingAt: [1])
        source --> sink
        let thrown = await #expect(throws: ELImageError.self) {
            try await source.run(SyntheticPictures(count: 6, damagedAt: 2, failingAt: 4), on: context)
        }
        await context.close()
        let all = await Array(events)

        let failures = all.compactMap { event -> NodeFailure? in
            if case .failed(let failure) = event { return failure }
            return nil
        }
        #expect(failures.map { "\($0.error)" } == ["FailingSink: the sink refuses frame 1", "synthetic, frame 2: damaged on purpose",
                                                   "synthetic, frame 4: the test fails here"])
        #expect(failures.map { $0.reference.refers(to: sink) } == [true, false, false])
        #expect(failures.map { $0.reference.refers(to: source) } == [false, true, true])
        // What run(on:) threw is the last failure event: one failure, not a second one.
        #expect(thrown.map { "\($0)" } == failures.last.map { "\($0.error)" })
        // The handler keeps its scope: the failures nobody throws.
        #expect(heard.withLock { $0.map { "\($0.error)" } } == failures.dropLast().map { "\($0.error)" })

        guard case .sourceEnded(let end)? = all.dropLast().last else {
            Issue.record("the source's end is not the event before .closed: \(all)")
            return
        }
        #expect(end.node.refers(to: source) && end.failed)
        #expect(end.statistics.delivered == 4 && end.statistics.damaged == 1)
        guard case .closed? = all.last else {
            Issue.record("the last event is not .closed: \(all)")
            return
        }
        #expect(!all.contains { if case .lost = $0 { true } else { false } })
    }

    @Test("A consumer that never reads holds no frame back; it loses the oldest failures, counted, never an end")
    func slowConsumerNeverBlocks() async throws {
        let context = try TestContexts.make()
        let events = context.events(capacity: 1)
        let source = EventSource(policy: .backPressure(capacity: 2))
        let sink = FailingSink(failingAt: Set(0..<50))
        source --> sink
        // 50 failures into a buffer of 1 that nobody reads: a publisher that waited would hang here.
        try await source.run(SyntheticPictures(count: 50), on: context)
        #expect(sink.received == 50)
        await context.close()

        var (failed, lost, ends) = (0, 0, [String]())
        for await event in events {
            switch event {
            case .failed: failed += 1
            case .lost(let count): lost += count
            case .sourceEnded: ends.append("sourceEnded")
            case .closed: ends.append("closed")
            default: break
            }
        }
        #expect(failed + lost == 50, "every failure is either there or counted as lost")
        #expect(failed <= 1 && lost >= 49)
        #expect(ends == ["sourceEnded", "closed"], "ends are kept beyond the buffer's size")
    }

    @Test("The stream ends with .closed when the context closes; one made later ends at once; cancelling ends it")
    func streamEndsWithTheContext() async throws {
        let context = try TestContexts.make()
        let events = context.events
        let reader = Task { await Array(events) }
        await context.close()
        let all = await reader.value
        #expect(all.count == 1)
        guard case .closed? = all.first else {
            Issue.record("expected .closed, got \(all)")
            return
        }
        #expect(await Array(context.events).isEmpty)

        let open = try TestContexts.make()
        let waiting = Task { await Array(open.events) }
        waiting.cancel()
        #expect(await waiting.value.isEmpty, "a cancelled iteration ends without waiting for the context")
    }

    @Test("A node's messages (a node of the user's, through a NodeMessenger) come on the stream naming it, in order with its end; none before it met a context")
    func nodeMessages() async throws {
        let context = try TestContexts.make()
        let events = context.events
        let input = RawDataInput()
        let watcher = MessagingWatcher()
        watcher.messenger.publish(Seen(frame: -1))  // no context met yet: nowhere to go
        input --> watcher
        for frame in 0..<3 {
            try await input.process(try PixelBuffer(format: .rgba, width: 8, height: 8,
                                                    timestamp: MediaTime(value: Int64(frame), timescale: 25)), on: context)
        }
        try await context.perform { input.finish(in: $0) }
        await context.close()
        let all = try #require(await elementsUntilEnd(of: events))
        let messages = all.compactMap { event in event.message(Seen.self).map { (event.node, $0.frame) } }
        #expect(messages.map(\.1) == [0, 1, 2])
        #expect(messages.allSatisfy { $0.0?.refers(to: watcher) == true })
        #expect(all.contains { "\($0)".hasSuffix(": saw frame 2") })
    }

    @Test("Drops name their node; merged while not taken, their counts add up to the source's own")
    func dropsAddUp() async throws {
        let context = try TestContexts.make()
        let events = context.events
        let source = EventSource(policy: .newestWins)
        let producedAll = Gate()
        // The sink holds the first frame until every picture is made: the newest wins, the rest drop.
        let sink = FailingSink(failingAt: [], holdFirst: producedAll)
        source --> sink
        try await source.run(SyntheticPictures(count: 20) { index in if index == 20 { producedAll.open() } }, on: context)
        await context.close()
        let drops = await Array(events).compactMap { event -> FrameDrop? in
            if case .dropped(let drop) = event { return drop }
            return nil
        }
        let statistics = source.runner.statistics
        #expect(statistics.dropped > 0 && statistics.produced == 20)
        #expect(drops.allSatisfy { $0.node.refers(to: source) })
        #expect(drops.map(\.count).reduce(0, +) == statistics.dropped)
        #expect(drops.last?.total == statistics.dropped)
    }

    @Test("close() lets go of the frames still queued and keeps those written; finish() writes them all")
    func closeStopsFinishDrains() async throws {
        for stops in [true, false] {
            let context = try TestContexts.make()
            let events = context.events
            let writer = GatedWriter()
            let sink = ReadbackSink(.init(path: "gated", threadName: "test-gated", format: .rgba, capacity: 4),
                                    open: { _ in writer })
            // The first frame is held in the writer, three wait in the queue.
            try await context.perform { context in
                for index in 0..<4 {
                    let buffer = try PixelBuffer(format: .rgba, width: 2, height: 2, data: [UInt8](repeating: UInt8(index), count: 16))
                    try sink.take(try context.makeFrame(from: buffer), time: Int64(index), owner: writer, in: context)
                }
            }
            #expect(await writer.gate.waitUntilWaiting(), "the writer never got its first frame")
            if stops { sink.requestStop() } else { sink.requestFinish() }
            writer.gate.open()
            #expect(try await sink.outcome().get() == .finished)
            let counts = sink.counts
            #expect(counts.written == (stops ? 1 : 4) && counts.lost == (stops ? 3 : 0), "stops: \(stops), \(counts)")
            #expect(writer.written.withLock { $0 } == (stops ? [0] : [0, 1, 2, 3]))
            #expect(writer.published.withLock { $0 }, "the output is completed and put in place either way")
            await context.close()
            let ends = await Array(events).compactMap { event -> SinkEnd? in
                if case .sinkFinished(let end) = event { return end }
                return nil
            }
            #expect(ends.map(\.outcome) == [.finished])
            #expect(ends.map(\.framesWritten) == [stops ? 1 : 4] && ends.map(\.framesDropped) == [stops ? 3 : 0])
            #expect(ends.first?.node.refers(to: writer) == true)
        }
    }

    @Test("A running source publishes its counters once a second of the context's clock, and only then")
    func statisticsOncePerSecond() async throws {
        let clock = ManualClock()
        let context = try TestContexts.make(clock: clock)
        let events = context.events
        let source = EventSource(policy: .backPressure(capacity: 2))
        // A second passes while frame 2 is in the graph, and another while frame 5 is, once the
        // first sample has been taken (one not taken would be replaced by the next).
        let firstTaken = Gate()
        let sink = ClockAdvancingSink(clock: clock, atFrames: [2, 5]) { number in if number == 5 { firstTaken.pass() } }
        source --> sink
        async let run: Void = source.run(SyntheticPictures(count: 8), on: context)
        var samples: [SourceProgress] = []
        for await event in events {
            guard case .statistics(let progress) = event else { continue }
            samples.append(progress)
            if samples.count == 1 { firstTaken.open() } else { break }
        }
        try await run
        await context.close()
        #expect(samples.map(\.statistics.delivered) == [3, 6], "\(samples)")
        #expect(samples.allSatisfy { $0.node.refers(to: source) && $0.statistics.produced >= $0.statistics.delivered })
    }

    @Test("A consumer that falls behind keeps one counters sample per source, the newest, and loses no failure to it")
    func statisticsSamplesGiveWay() async throws {
        let clock = ManualClock()
        let context = try TestContexts.make(clock: clock)
        let events = context.events(capacity: 3)
        let source = EventSource(policy: .backPressure(capacity: 2))
        // A second passes with every frame: a sample after each, none taken while the run goes on.
        source --> ClockAdvancingSink(clock: clock, atFrames: Set(0..<10))
        try await source.run(SyntheticPictures(count: 10), on: context)
        await context.close()
        let all = await Array(events)
        let samples = all.compactMap { event -> SourceProgress? in
            if case .statistics(let progress) = event { return progress }
            return nil
        }
        #expect(samples.map(\.statistics.delivered) == [10], "the newest sample replaced the others: \(all)")
        #expect(!all.contains { if case .lost = $0 { true } else { false } }, "samples are not counted as lost")
    }

    @Test("Frames pushed by hand end with .sourceEnded at finish(in:), counted per stream")
    func pushedStreamEnds() async throws {
        let context = try TestContexts.make()
        let events = context.events
        let input = RawDataInput()
        let sink = FrameCollector()
        input --> sink
        let pixels = [UInt8](repeating: 7, count: 4 * 4 * 4)
        for frames in [3, 2] {
            for index in 0..<frames {
                try await input.process(pixels, width: 4, height: 4, format: .rgba,
                                        timestamp: MediaTime(value: Int64(index), timescale: 25), on: context)
            }
            try await context.perform { context in input.finish(in: context) }
        }
        await context.close()
        let ends = await Array(events).compactMap { event -> SourceEnd? in
            if case .sourceEnded(let end) = event { return end }
            return nil
        }
        #expect(ends.map(\.statistics.delivered) == [3, 2] && ends.allSatisfy { $0.node.refers(to: input) && !$0.failed })
        #expect(sink.endOfStreamCount == 2 && sink.count == 5)
    }

    @Test("Closing the context closes sources and finishes sinks, once each")
    func contextEndsEachNodeWithItsVerb() async throws {
        let context = try TestContexts.make()
        let (source, filter, sink) = (VerbRecorder(), VerbRecorder(), VerbRecorder())
        context.register(source, stage: .source)
        context.register(filter, stage: .filter)
        context.register(sink, stage: .sink)
        await context.close()
        await context.close()
        #expect(source.calls == ["close"] && filter.calls == ["close"])
        #expect(sink.calls == ["finish"], "a sink drains: what reached it is written")
    }

    @Test("Closing the context finishes file sinks: every frame that reached one is in the file")
    func contextCloseDrainsSinks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("drained.rgba")
        let context = try TestContexts.make()
        let events = context.events
        let input = RawDataInput()
        let output = try FileOutput.rawRGBA(path: path)
        input --> output
        for index in 0..<12 {
            let buffer = try PixelBuffer(format: .rgba, width: 4, height: 2, data: [UInt8](repeating: UInt8(index), count: 32))
            try await input.process(buffer, on: context)
        }
        await context.close()  // no finish(): the context's close drains the sink
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count == 12 * 32)
        #expect(stride(from: 0, to: bytes.count, by: 32).map { bytes[$0] } == (0..<12).map { UInt8($0) })
        let ends = await Array(events).compactMap { event -> SinkEnd? in
            if case .sinkFinished(let end) = event { return end }
            return nil
        }
        #expect(ends.map(\.framesWritten) == [12] && ends.first?.node.refers(to: output) == true)
    }

    @Test("A camera's end is an event: cancel() from a frame callback ends the stream; finish() waits and it can start again")
    func cameraEndIsAnEvent() async throws {
        let context = try TestContexts.make()
        let device = EmulatedVideoDevice(path: "/dev/video0", formats: [
            .init(fourCC: .yuyv, sizes: [.init(width: 64, height: 48, framesPerSecond: [200])]),
        ])
        let camera = Camera(device: "/dev/video0", settings: CaptureSettings(width: 64, height: 48, framesPerSecond: 200), io: EmulatedDeviceIO([device]))
        let collector = FrameCollector()
        camera --> collector
        camera --> FrameCounter { [weak camera] count in if count == 3 { camera?.cancel() } }  // on the render thread
        let events = context.events
        try camera.start(on: context)
        let end = await events.end(of: camera)
        guard case .sourceEnded(let ended)? = end else {
            Issue.record("no end of the camera: \(String(describing: end))")
            return
        }
        #expect(!ended.failed && ended.statistics.delivered >= 3)
        await camera.finish()  // already ended: returns once its threads are joined
        #expect(collector.endOfStreamCount == 1 && !camera.isRunning)

        let again = context.events
        try camera.start(on: context)
        await camera.finish()
        #expect(collector.endOfStreamCount == 2)
        #expect(await again.end(of: camera) != nil, "the second stream's end is an event too")
        await camera.close()
    }
}

// MARK: Test nodes

/// A source node around a runner, as the media inputs are.
private final class EventSource: ImageOutput, ClosableNode {
    let outputs = OutputTargets()
    let runner: SourceRunner

    init(policy: SourcePolicy) { runner = SourceRunner(name: "ELImage.event-test", policy: policy) }

    func run(_ producer: SyntheticPictures, on context: RenderContext) async throws {
        try await runner.run(producer, for: self, on: context)
    }

    func close() async { await runner.close() }
}

/// Counts the frames it gets and refuses those whose number is in `failingAt`; with `holdFirst`,
/// holds the render thread at the first frame until that gate opens.
private final class FailingSink: ImageInput, Sendable {
    let inputSlots = InputSlots(count: 1)
    private let failingAt: Set<Int>
    private let holdFirst: Gate?
    private let count = Locked(0)

    init(failingAt: Set<Int>, holdFirst: Gate? = nil) {
        self.failingAt = failingAt
        self.holdFirst = holdFirst
    }

    var received: Int { count.withLock { $0 } }

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        let number = count.withLock { count in
            defer { count += 1 }
            return count
        }
        if number == 0 { holdFirst?.pass() }
        if failingAt.contains(number) {
            throw ELImageError.invalidState(node: "FailingSink", reason: "the sink refuses frame \(number)")
        }
    }
}

/// Moves `clock` on by a second while each frame whose number is in `atFrames` is in the graph.
private final class ClockAdvancingSink: ImageInput, Sendable {
    let inputSlots = InputSlots(count: 1)
    private let clock: ManualClock
    private let atFrames: Set<Int>
    private let before: @Sendable (Int) -> Void
    private let count = Locked(0)

    /// `before` runs with the frame's number before the clock moves.
    init(clock: ManualClock, atFrames: Set<Int>, before: @escaping @Sendable (Int) -> Void = { _ in }) {
        (self.clock, self.atFrames, self.before) = (clock, atFrames, before)
    }

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        let number = count.withLock { count in
            defer { count += 1 }
            return count
        }
        guard atFrames.contains(number) else { return }
        before(number)
        clock.advance(by: .seconds(1))
    }
}

/// A node that records which end verb it was called with.
private final class VerbRecorder: FinishableNode {
    let verbs = Locked<[String]>([])
    var calls: [String] { verbs.withLock { $0 } }

    func close() async { verbs.withLock { $0.append("close") } }

    func finish() async throws -> Int {
        verbs.withLock { $0.append("finish") }
        return 0
    }
}

/// A writer that holds its first frame at `gate` until the test opens it.
private final class GatedWriter: FrameWriter, Sendable {
    let gate = Gate()
    let written = Locked<[UInt8]>([])
    let published = Locked(false)

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        if number == 0 { gate.pass() }
        written.withLock { $0.append(buffer.data[0]) }
        return .more
    }

    func finish() {}
    func publish() { published.withLock { $0 = true } }
    func salvage(after error: ELImageError) {}
    func discard() {}
}

extension Array where Element == RenderEvent {
    /// Every event of `events` until it ends.
    init(_ events: RenderEvents) async {
        var all: [RenderEvent] = []
        for await event in events { all.append(event) }
        self = all
    }
}

/// A message of a node of the user's own.
private struct Seen: NodeMessage {
    let frame: Int
    var description: String { "saw frame \(frame)" }
}

/// A user's node that tells each frame it sees on its context's events.
private final class MessagingWatcher: ImageInput, Sendable {
    let inputSlots = InputSlots(count: 1)
    let messenger = NodeMessenger()
    private let seen = Locked(0)

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        messenger.meet(context, as: self)
        messenger.publish(Seen(frame: seen.withLock { count in defer { count += 1 }; return count }))
    }

    func endOfStream(at index: Int, in context: isolated RenderContext) {}
}
