import ELImage
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
        try await source.run(Synthetic(count: 30) { index in
            lead.withLock { $0 = max($0, index - sink.received.count) }
        }, on: context)
        #expect(sink.timestamps == (0..<30).map { Synthetic.time($0) })
        #expect(sink.endOfStreamCount == 1)
        let statistics = source.runner.statistics
        #expect((statistics.produced, statistics.delivered, statistics.dropped) == (30, 30, 0))
        // Two waiting in the queue, one being delivered, one being made: never more ahead.
        #expect(lead.withLock { $0 } <= 4)
    }

    @Test("Newest wins: the producer never waits for a slow graph; older frames are dropped and counted")
    func newestWinsDropsAndCounts() async throws {
        let context = try TestContexts.make()
        let (source, sink) = connected(.newestWins, delay: .milliseconds(200))
        let receivedWhenDone = Locked(-1)
        try await source.run(Synthetic(count: 20) { index in
            if index == 20 { receivedWhenDone.withLock { $0 = sink.received.count } }
        }, on: context)
        let statistics = source.runner.statistics
        #expect(statistics.produced == 20)
        #expect(statistics.delivered == sink.received.count && statistics.delivered < 20)
        #expect(statistics.dropped == 20 - statistics.delivered)
        // The producer made all 20 while the sink (0.2 s a frame) took at most a few.
        #expect(receivedWhenDone.withLock { $0 } < 5)
        // Delivered in order, and the newest (the last) frame always arrives.
        #expect(sink.timestamps == sink.timestamps.sorted() && sink.timestamps.last == Synthetic.time(19))
        #expect(sink.endOfStreamCount == 1)
    }

    @Test("Real-time pacing: frames at their times; late ones are dropped and counted")
    func realTimePacing() async throws {
        let context = try TestContexts.make()
        let (source, sink) = connected(.backPressure(capacity: 2))
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            try await source.run(Synthetic(count: 10), on: context, pacing: .realTime, frameInterval: .milliseconds(40))
        }
        #expect(elapsed >= .milliseconds(350), "10 frames at 25 fps span 0.36 s")
        #expect(sink.timestamps.count == source.runner.statistics.delivered)
        #expect(source.runner.statistics.delivered + source.runner.statistics.dropped == 10)

        let (slowSource, slow) = connected(.backPressure(capacity: 2), delay: .milliseconds(120))
        try await slowSource.run(Synthetic(count: 10), on: context, pacing: .realTime, frameInterval: .milliseconds(40))
        let statistics = slowSource.runner.statistics
        #expect(statistics.dropped > 0 && statistics.delivered + statistics.dropped == 10)
        #expect(slow.received.count == statistics.delivered)
    }

    @Test("Damage is reported and counted, and the run goes on")
    func damageGoesOn() async throws {
        let context = try TestContexts.make()
        let failures = FailureRecorder(context)
        let (source, sink) = connected(.backPressure(capacity: 2))
        try await source.run(Synthetic(count: 5, damagedAt: 2), on: context)
        #expect(sink.timestamps.count == 5)
        #expect(source.runner.statistics.damaged == 1)
        #expect(failures.errors.count == 1 && "\(failures.errors)".contains("frame 2"))
    }

    @Test("A producer's error ends the run: the frames before, end-of-stream, then the error is thrown")
    func failureEndsRun() async throws {
        let context = try TestContexts.make()
        let (source, sink) = connected(.backPressure(capacity: 2))
        await #expect(throws: ELImageError.self) {
            try await source.run(Synthetic(count: 10, failingAt: 3), on: context)
        }
        #expect(sink.timestamps == (0..<3).map { Synthetic.time($0) })
        #expect(sink.endOfStreamCount == 1)
        #expect(!context.runningThreadNames.contains { $0.hasPrefix("ELImage.test") })
    }

    @Test("close() stops an endless run and joins its threads; a second run while one goes on is refused")
    func closeJoinsThreads() async throws {
        let context = try TestContexts.make()
        let (source, sink) = connected(.backPressure(capacity: 2))
        let run = Task { try await source.run(Synthetic(count: .max, pause: 0.005), on: context) }
        #expect(await waitUntil { sink.received.count >= 3 })
        #expect(context.runningThreadNames.contains("ELImage.test"))
        await #expect(throws: ELImageError.self) { try await source.run(Synthetic(count: 1), on: context) }
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
        try source.runner.start(Synthetic(count: .max, pause: 0.005), for: source, on: context)
        #expect(source.runner.isProducing)
        #expect(await waitUntil { sink.received.count >= 3 })
        #expect(context.runningThreadNames.filter { $0.hasPrefix("ELImage.test") } == ["ELImage.test", "ELImage.test delivery"])
        #expect(throws: ELImageError.self) { try source.runner.start(Synthetic(count: 1), for: source, on: context) }
        await source.close()
        #expect(!source.runner.isProducing && source.runner.isIdle)
        #expect(!context.runningThreadNames.contains { $0.hasPrefix("ELImage.test") })
        #expect(sink.endOfStreamCount == 1)
        let statistics = source.runner.statistics
        #expect(statistics.produced >= 3 && statistics.produced == statistics.delivered + statistics.dropped)
        #expect(sink.received.count == statistics.delivered)

        // A new run after the last one: fresh statistics, its frames after the last end-of-stream.
        try source.runner.start(Synthetic(count: 2), for: source, on: context)
        try await source.runner.finish()
        #expect(sink.endOfStreamCount == 2)
        #expect(Array(sink.timestamps.suffix(2)) == [Synthetic.time(0), Synthetic.time(1)])
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

    func run(_ producer: Synthetic, on context: RenderContext, pacing: SourcePacing = .asFastAsPossible,
             frameInterval: Duration = .milliseconds(40)) async throws {
        try await runner.run(producer, for: self, on: context, pacing: pacing, frameInterval: frameInterval)
    }

    func close() async { await runner.close() }
}

/// `count` 2x2 pictures stamped n/25 s; damage or a failure at a chosen frame.
private struct Synthetic: FrameProducer {
    let count: Int
    var damagedAt: Int?
    var failingAt: Int?
    var pause: TimeInterval = 0
    /// Called before each picture is made (and once more at the end) with its number.
    var onNext: @Sendable (Int) -> Void = { _ in }
    private var index = 0

    init(count: Int, damagedAt: Int? = nil, failingAt: Int? = nil, pause: TimeInterval = 0,
         onNext: @escaping @Sendable (Int) -> Void = { _ in }) {
        (self.count, self.damagedAt, self.failingAt, self.pause, self.onNext) = (count, damagedAt, failingAt, pause, onNext)
    }

    static func time(_ index: Int) -> MediaTime { MediaTime(value: Int64(index), timescale: 25) }

    mutating func next(_ control: ProducerControl) throws -> ProducedFrame {
        onNext(index)
        guard index < count, !control.isCancelled else { return .endOfStream }
        if index == failingAt {
            throw ELImageError.malformedMedia(file: "synthetic", frame: index, reason: "the test fails here")
        }
        if index == damagedAt {
            control.reportDamage(ELImageError.malformedMedia(file: "synthetic", frame: index, reason: "damaged on purpose"))
        }
        if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        let value = UInt8(truncatingIfNeeded: index)
        var buffer = try PixelBuffer(format: .rgba, width: 2, height: 2, data: [UInt8](repeating: value, count: 16))
        buffer.timestamp = Self.time(index)
        index += 1
        return .picture(buffer)
    }
}
