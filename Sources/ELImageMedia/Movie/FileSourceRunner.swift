import ELImage
import Foundation

/// Counters of a file source's run (`MovieInput.statistics`, `StillImageInput.statistics`).
public struct MovieStatistics: Sendable, Equatable {
    /// Frames the source produced for the graph (decoded pictures within the chosen range;
    /// frames skipped to reach a seek position are not counted).
    public var decoded = 0
    /// Frames the graph received.
    public var delivered = 0
    /// Frames dropped because they were late (real-time pacing only); `decoded` is
    /// `delivered + dropped` once a run has ended normally.
    public var dropped = 0
    /// Damage the decoder recovered from, each also reported to the context's error handler.
    public var damaged = 0

    public init() {}
}

/// What a file source's producer thread hands to the task that feeds the graph.
enum SourceEvent: Sendable {
    /// A picture to upload and deliver.
    case frame(PixelBuffer)
    /// Damage the producer recovered from: reported to the error handler, the run goes on.
    case damage(ELImageError)
    /// A fault the producer cannot go on from: the run ends and throws it.
    case failure(any Error)
}

/// Runs a file source: a producer on its own thread (decoding may block and take long, so it stays
/// off Swift's cooperative threads) sends pictures through a bounded `FrameChannel`; the calling
/// task paces them, uploads each one on the render thread and delivers it to the node's targets.
/// One run at a time per node. The producer thread is joined before the run returns.
final class FileSourceRunner: Sendable {
    private struct Run {
        var channel: FrameChannel<SourceEvent>?
        var statistics = MovieStatistics()
        /// Tasks waiting in `close()` for the run to end.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(Run())

    var statistics: MovieStatistics { state.withLock { $0.statistics } }

    /// Stops the current run, if any: the producer stops at its next frame and the run ends with
    /// end-of-stream.
    func cancel() {
        state.withLock { $0.channel }?.close()
    }

    /// Stops the current run, if any, and returns once it has ended: end-of-stream delivered and
    /// the producer thread joined.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let running = state.withLock { run -> Bool in
                guard let channel = run.channel else { return false }
                channel.close()
                run.idleWaiters.append(continuation)
                return true
            }
            if !running { continuation.resume() }
        }
    }

    /// Runs `produce` on a new thread named `threadName` and feeds what it sends into `node`'s
    /// targets with `pacing`; sends end-of-stream at the end, and throws the producer's failure.
    /// The node is registered with `context`, whose `close()` stops the run.
    ///
    /// `produce` must stop when `send` returns false; the channel is finished for it.
    func run(node: ImageOutput & ClosableNode, on context: RenderContext, pacing: MoviePacing,
             orientation: Orientation = .up, frameInterval: Duration,
             threadName: String, produce: @escaping @Sendable (FrameChannel<SourceEvent>) -> Void) async throws {
        let channel = FrameChannel<SourceEvent>(capacity: 2)
        try state.withLock { run in
            guard run.channel == nil else {
                throw ELImageError.invalidState(node: String(describing: type(of: node)),
                                                reason: "run(on:) was called while a run is going on; wait for it to end, or cancel() it first")
            }
            run = Run(channel: channel)
        }
        if context.isClosed { channel.close() }
        context.register(node, stage: .source)
        let producer = JoinableThread(name: threadName, group: context.threads) {
            defer { channel.finish() }
            produce(channel)
        }
        do {
            try producer.start()
        } catch {
            endRun()
            throw error
        }
        var schedule = RealTimeSchedule(tolerance: frameInterval)
        var failure: (any Error)?
        await withTaskCancellationHandler {
            for await event in channel.elements {
                channel.didTake()
                guard !channel.isClosed else { continue }  // cancelled or failed: wait for the producer to stop
                switch event {
                case .damage(let error):
                    count { $0.damaged += 1 }
                    context.report(error, from: node)
                case .failure(let error):
                    failure = error
                    channel.close()
                case .frame(let buffer):
                    count { $0.decoded += 1 }
                    if pacing == .realTime, await !schedule.waitUntilDue(buffer.timestamp) {
                        count { $0.dropped += 1 }
                        continue
                    }
                    guard !channel.isClosed else { continue }
                    do {
                        try await context.perform { context in
                            node.deliver(try context.makeFrame(from: buffer, orientation: orientation), in: context)
                        }
                        count { $0.delivered += 1 }
                    } catch {
                        failure = error
                        channel.close()
                    }
                }
            }
        } onCancel: {
            channel.close()
        }
        await producer.join()
        _ = try? await context.perform { context in node.deliverEndOfStream(in: context) }
        endRun()
        if let failure { throw failure }
    }

    /// Marks the node idle and wakes the tasks waiting in `close()`.
    private func endRun() {
        let waiters = state.withLock { run in
            run.channel = nil
            defer { run.idleWaiters = [] }
            return run.idleWaiters
        }
        waiters.forEach { $0.resume() }
    }

    private func count(_ change: (inout MovieStatistics) -> Void) {
        state.withLock { change(&$0.statistics) }
    }
}
