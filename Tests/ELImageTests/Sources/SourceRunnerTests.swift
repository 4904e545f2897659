import ELImage
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

// SourceRunner with synthetic producers: the queue policies, pacing, damage and failures, close.

@Suite("Source runner", .closesContexts, .serialized)
struct SourceRunnerTests {
    @Test("Back-pressure: a slow graph loses nothing, keeps the order, and holds the producer back")
    func backPressureLosesNothing() async throws {
        let context = try TestContexts.make()
        let (source, sink) = connected(.backPressure(capacity: 2), delay: .milliseconds(5))
        let lead = Locked(0)
        try await source.run(SyntheticPictures(count: 30) { index in
            lead.withLock { $0 = max($0, index - sink.received.count) }
        }, on: context)
        #expect(sink.timestamps == (0..<30).map { SyntheticPictures.time($0) })
        #expect(sink.sequenceNumbers == Array(0..<30))
        #expect(sink.endOfStreamCount == 1)
        let statistics = source.runner.statistics
        #expect((statistics.produced, statistics.delivered, statistics.dropped) == (30, 30, 0))
        // Two waiting in the queue, one being delivered, one being made: never more ahead.
        #expect(lead.withLock { $0 } <= 4)
    }

    @Test("Newest wins: the producer never waits for a stuck graph; older frames are dropped and counted")
    func newestWinsDropsAndCounts() async throws {
        let context = try TestContexts.make()
        let gate = Gate()  // the graph is stuck on its first frame until the producer is done
        let source = TestSource(policy: .newestWins)
        let sink = MovieTimestampSink { count in if count == 1 { gate.pass() } }
        source --> sink
        let receivedWhenDone = Waitable<Int?>(nil)
        let run = Task {
            try await source.run(SyntheticPictures(count: 20) { index in
                if index == 20 { receivedWhenDone.update { $0 = sink.received.count } }
            }, on: context)
        }
        #expect(await gate.waitUntilWaiting())
        let producerDone = await receivedWhenDone.wait { $0 != nil }
        gate.open()
        try await run.value
        #expect(producerDone)
        let statistics = source.runner.statistics
        #expect(statistics.produced == 20)
        #expect(statistics.delivered == sink.received.count && statistics.delivered <= 2)
        #expect(statistics.dropped == 20 - statistics.delivered)
        // The producer made all 20 while the graph held its first frame (or before it got one).
        #expect((receivedWhenDone.value ?? 99) <= 1)
        // Delivered in order, and the newest (the last) frame always arrives.
        #expect(sink.timestamps == sink.timestamps.sorted() && sink.timestamps.last == SyntheticPictures.time(19))
        // Named by their number in the source: the ones replaced before them are counted.
        #expect(sink.sequenceNumbers == sink.timestamps.map { Int(($0.seconds * 25).rounded()) })
        #expect(sink.endOfStreamCount == 1)
    }

    @Test("Real-time pacing on the context's clock: each frame exactly when its time comes, never before")
    func realTimePacing() async throws {
        let clock = ManualClock()
        let context = try TestContexts.make(clock: clock)
        let deliveredAt = Locked<[Duration]>([])
        let source = TestSource(policy: .backPressure(capacity: 2))
        let sink = MovieTimestampSink { _ in deliveredAt.withLock { $0.append(clock.elapsed) } }
        source --> sink
        try source.runner.start(SyntheticPictures(count: 10), for: source, on: context, pacing: .realTime,
                                frameInterval: .milliseconds(40))
        for frame in 1..<10 {
            // Frame `frame` waits for its time (frame × 40 ms after frame 0) and comes at no other.
            // (The producer's pushes also wake the delivery thread, which then waits again: the
            // deadline is awaited, not read once.)
            let due = clock.start + .milliseconds(40 * frame)
            #expect(await sink.waitForFrames(frame))
            #expect(await clock.waitForDeadlines([due], timeout: .seconds(10)))
            #expect(sink.received.count == frame)
            clock.advance(by: .milliseconds(20))  // half way there: still waiting
            #expect(await clock.waitForDeadlines([due], timeout: .seconds(10)))
            #expect(sink.received.count == frame)
            clock.advance(by: .milliseconds(20))
        }
        try await source.runner.finish()
        #expect(sink.timestamps == (0..<10).map { SyntheticPictures.time($0) })
        #expect(deliveredAt.withLock { $0 } == (0..<10).map { .milliseconds(40 * $0) })
        let statistics = source.runner.statistics
        #expect((statistics.produced, statistics.delivered, statistics.dropped) == (10, 10, 0))
    }

    @Test("Real-time pacing with a slow graph: a frame due more than one interval ago is dropped and counted")
    func realTimeDropsLateFrames() async throws {
        let clock = ManualClock()
        let context = try TestContexts.make(clock: clock)
        // The graph takes 120 ms of clock time per frame (frames are due every 40 ms, one interval late is allowed).
        let source = TestSource(policy: .backPressure(capacity: 2))
        let sink = MovieTimestampSink { _ in clock.advance(by: .milliseconds(120)) }
        source --> sink
        try await source.run(SyntheticPictures(count: 10), on: context, pacing: .realTime, frameInterval: .milliseconds(40))
        // Independently: frame n is due at 40n ms; it is shown if the clock is at most 40 ms past that.
        var now = 0, shown: [Int] = []
        for frame in 0..<10 where now <= 40 * frame + 40 {
            shown.append(frame)
            now = max(now, 40 * frame) + 120
        }
        #expect(shown == [0, 2, 5, 8])
        #expect(sink.timestamps == shown.map { SyntheticPictures.time($0) })
        // Each frame is named by its number in the source, not by how many frames came before it.
        #expect(sink.sequenceNumbers == shown)
        let statistics = source.runner.statistics
        #expect((statistics.produced, statistics.delivered, statistics.dropped) == (10, shown.count, 10 - shown.count))
    }

    @Test("Damage is reported and counted, and the run goes on")
    func damageGoesOn() async throws {
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let (source, sink) = connected(.backPressure(capacity: 2))
        try await source.run(SyntheticPictures(count: 5, damagedAt: 2), on: context)
        #expect(sink.timestamps.count == 5)
        #expect(source.runner.statistics.damaged == 1)
        #expect(failures.errors.count == 1 && "\(failures.errors)".contains("frame 2"))
    }

    @Test("A producer's error ends the run: the frames before, end-of-stream, then the error is thrown")
    func failureEndsRun() async throws {
        let context = try TestContexts.make()
        let (source, sink) = connected(.backPressure(capacity: 2))
        await #expect(throws: ELImageError.self) {
            try await source.run(SyntheticPictures(count: 10, failingAt: 3), on: context)
        }
        #expect(sink.timestamps == (0..<3).map { SyntheticPictures.time($0) })
        #expect(sink.endOfStreamCount == 1)
        #expect(!context.runningThreadNames.contains { $0.hasPrefix("ELImage.test") })
    }

    @Test("close() stops an endless run and joins its threads; a second run while one goes on is refused")
    func closeJoinsThreads() async throws {
        let context = try TestContexts.make()
        let (source, sink) = connected(.backPressure(capacity: 2))
        let run = Task { try await source.run(SyntheticPictures(count: .max), on: context) }
        #expect(await sink.waitForFrames(3))
        #expect(context.runningThreadNames.contains("ELImage.test"))
        await #expect(throws: ELImageError.self) { try await source.run(SyntheticPictures(count: 1), on: context) }
        await source.close()
        try await run.value
        #expect(!context.runningThreadNames.contains { $0.hasPrefix("ELImage.test") })
        #expect(sink.endOfStreamCount == 1)
        let statistics = source.runner.statistics
        #expect(statistics.produced == statistics.delivered + statistics.dropped)
    }
}

extension SourceRunnerTests {
    @Test("start() returns at once with the run going on; close() ends it, delivers end-of-stream and joins both threads")
    func startThenClose() async throws {
        let context = try TestContexts.make()
        let (source, sink) = connected(.backPressure(capacity: 2))
        try source.runner.start(SyntheticPictures(count: .max), for: source, on: context)
        #expect(source.runner.isProducing)
        #expect(await sink.waitForFrames(3))
        #expect(context.runningThreadNames.filter { $0.hasPrefix("ELImage.test") } == ["ELImage.test", "ELImage.test delivery"])
        #expect(throws: ELImageError.self) { try source.runner.start(SyntheticPictures(count: 1), for: source, on: context) }
        await source.close()
        #expect(!source.runner.isProducing && source.runner.isIdle)
        #expect(!context.runningThreadNames.contains { $0.hasPrefix("ELImage.test") })
        #expect(sink.endOfStreamCount == 1)
        let statistics = source.runner.statistics
        #expect(statistics.produced >= 3 && statistics.produced == statistics.delivered + statistics.dropped)
        #expect(sink.received.count == statistics.delivered)

        // A new run after the last one: fresh statistics, its frames after the last end-of-stream.
        try source.runner.start(SyntheticPictures(count: 2), for: source, on: context)
        try await source.runner.finish()
        #expect(sink.endOfStreamCount == 2)
        #expect(Array(sink.timestamps.suffix(2)) == [SyntheticPictures.time(0), SyntheticPictures.time(1)])
        #expect(source.runner.statistics.produced == 2 && source.runner.statistics.delivered == 2)
        #expect(!context.runningThreadNames.contains { $0.hasPrefix("ELImage.test") })
    }
}

/// A test source connected to a timestamp sink that takes `delay` per frame.
private func connected(_ policy: SourcePolicy, delay: Duration = .zero) -> (TestSource, MovieTimestampSink) {
    let source = TestSource(policy: policy)
    let sink = MovieTimestampSink(delay: delay)
    source --> sink
    return (source, sink)
}

/// A source node around a runner, as the media inputs are.
private final class TestSource: ImageOutput, ClosableNode {
    let outputs = OutputTargets()
    let runner: SourceRunner

    init(policy: SourcePolicy) { runner = SourceRunner(name: "ELImage.test", policy: policy) }

    func run(_ producer: SyntheticPictures, on context: RenderContext, pacing: SourcePacing = .asFastAsPossible,
             frameInterval: Duration = .milliseconds(40)) async throws {
        try await runner.run(producer, for: self, on: context, pacing: pacing, frameInterval: frameInterval)
    }

    func close() async { await runner.close() }
}
