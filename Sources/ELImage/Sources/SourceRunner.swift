import Synchronization

/// Runs a source node: the one path from a source's pictures to its targets, used by cameras,
/// movies, still images, Y4M and raw YUV files alike.
///
/// ```
/// producer thread ──► SourceQueue (policy) ──► delivery thread ──performAndWait──► render thread
///  FrameProducer:       back-pressure           pacing, statistics,        upload, deliver to
///  decoder, reader,     or newest-wins          damage, end of stream      the node's targets
///  camera device
/// ```
///
/// - A run is one stream: `start` starts the producer and delivery threads and returns; `finish`
///   awaits the end (end-of-stream delivered, threads joined) and throws the producer's error;
///   `run` is both. A run's producer returning `.endOfStream` (or throwing) ends it.
/// - The delivery thread is a plain thread that hands each picture to the render thread with
///   `RenderContext.performAndWait`: deliveries never wait for a free cooperative thread (which
///   blocking code elsewhere in a program can use up) and keep their order. A run started while
///   the previous one still delivers waits for it: its end-of-stream comes first.
/// - The policy (`SourcePolicy`): files wait for the graph and lose nothing; cameras never wait,
///   the newest picture wins and the dropped ones are counted.
/// - Each picture is numbered in its source's stream (`PixelBuffer.sequenceNumber`), counting
///   the frames the source dropped or its driver skipped before it: events and detectors name a
///   frame by that number, whatever was lost between the source and them.
/// - Each delivery names its source (`FrameOrigin.current`) to the nodes it goes through.
/// - Pacing (`SourcePacing`): as fast as the graph takes frames, or in real time (on the context's
///   `clock`) with late frames dropped.
/// - Errors: damage is a `.failed` event on the context's stream and the run goes on; a
///   producer's thrown error ends the run after the frames before it and end-of-stream: it is a
///   `.failed` event, and `finish`/`run` throw it. The end is a `.sourceEnded` event, drops are
///   `.dropped` events.
/// - `cancel()` stops the run, dropping what waits; `close()` also returns once every thread the
///   runner started is joined.
public final class SourceRunner: Sendable {
    /// What the threads of one run share.
    private final class Run: Sendable {
        let queue: SourceQueue
        weak let node: (any ImageOutput & ClosableNode)?
        /// The node in failures and events (`Camera#1a2b`), kept when the node itself is gone.
        let nodeReference: NodeReference
        let context: RenderContext
        let pacing: SourcePacing
        let frameInterval: Duration
        let statistics = Locked(SourceStatistics())
        let failure = Locked<(any Error)?>(nil)
        /// True until the producer has made its last picture.
        let producing = Atomic<Bool>(true)
        /// The threads of the run before, joined by this run's delivery thread before it delivers.
        let predecessors = Locked<[JoinableThread]>([])

        init(queue: SourceQueue, node: some ImageOutput & ClosableNode, context: RenderContext,
             pacing: SourcePacing, frameInterval: Duration) {
            self.queue = queue
            self.node = node
            nodeReference = NodeReference(node)
            self.context = context
            self.pacing = pacing
            self.frameInterval = frameInterval
        }

        /// Changes the counters; frames newly counted as dropped are a `.dropped` event.
        func count(_ change: (inout SourceStatistics) -> Void) {
            let (dropped, total) = statistics.withLock { statistics in
                let before = statistics.dropped
                change(&statistics)
                return (statistics.dropped - before, statistics.dropped)
            }
            if dropped > 0 { context.publish(.dropped(FrameDrop(node: nodeReference, count: dropped, total: total))) }
        }
    }

    /// A run and its two threads.
    private struct Started {
        let run: Run
        let producer: JoinableThread
        let delivery: JoinableThread
        var threads: [JoinableThread] { [producer, delivery] }
    }

    private struct RunnerState {
        /// The current (or last) run.
        var current: Started?
        /// The run before it, while its delivery may still go on.
        var previous: Started?
    }

    /// The name of the producer thread; the delivery thread adds " delivery".
    public let name: String
    /// What happens when pictures come faster than the graph takes them.
    public let policy: SourcePolicy
    private let state = Locked(RunnerState())

    public init(name: String, policy: SourcePolicy) {
        self.name = name
        self.policy = policy
    }

    /// Counters of the current or last run.
    public var statistics: SourceStatistics {
        state.withLock { $0.current?.run.statistics }?.withLock { $0 } ?? SourceStatistics()
    }

    /// True when no picture or event waits and none is being delivered.
    public var isIdle: Bool {
        let queues = state.withLock { [$0.previous?.run.queue, $0.current?.run.queue] }
        return queues.allSatisfy { $0?.isIdle ?? true }
    }

    /// True while the current run's producer makes pictures.
    package var isProducing: Bool {
        state.withLock { $0.current?.run }?.producing.load(ordering: .acquiring) ?? false
    }

    // MARK: Runs

    /// Runs `producer` and delivers what it makes to `node`'s targets: `start` and `finish`.
    /// Cancelling the calling task stops the run like `cancel()`.
    /// - Throws: as `start` and `finish`.
    public func run(_ producer: sending any FrameProducer, for node: some ImageOutput & ClosableNode,
                    on context: RenderContext, pacing: SourcePacing = .asFastAsPossible,
                    frameInterval: Duration = .milliseconds(40)) async throws {
        let started = try begin(producer, for: node, on: context, pacing: pacing, frameInterval: frameInterval)
        try await withTaskCancellationHandler {
            try await end(started)
        } onCancel: {
            cancel()
        }
    }

    /// Starts a run: `producer` makes pictures on a new thread, a second thread delivers them to
    /// `node`'s targets, paced by `pacing` (`frameInterval`: how late a frame may be in real time),
    /// and end-of-stream after the last. Returns at once; `finish()` awaits the end. The node is
    /// registered with `context`, whose `close()` stops the run. Statistics start from zero.
    /// - Throws: `ELImageError.invalidState` when this runner's producer is still producing, or
    ///   when the system refuses a thread.
    public func start(_ producer: sending any FrameProducer, for node: some ImageOutput & ClosableNode,
                      on context: RenderContext, pacing: SourcePacing = .asFastAsPossible,
                      frameInterval: Duration = .milliseconds(40)) throws {
        try begin(producer, for: node, on: context, pacing: pacing, frameInterval: frameInterval)
    }

    @discardableResult
    private func begin(_ producer: sending any FrameProducer, for node: some ImageOutput & ClosableNode,
                       on context: RenderContext, pacing: SourcePacing, frameInterval: Duration) throws -> Started {
        let run = Run(queue: SourceQueue(policy: policy), node: node, context: context, pacing: pacing,
                      frameInterval: frameInterval)
        let started = Started(run: run, producer: producerThread(producer, run), delivery: deliveryThread(run))
        let previous = try state.withLock { state -> Started? in
            if let current = state.current, current.run.producing.load(ordering: .acquiring) {
                throw ELImageError.invalidState(node: String(describing: type(of: node)),
                                                reason: "a run was started while another is going on; wait for it to end, or cancel() it first")
            }
            state.previous = state.current
            state.current = started
            return state.previous
        }
        run.predecessors.withLock { $0 = previous?.threads ?? [] }
        if context.isClosed { run.queue.cancel() }
        context.register(node, stage: .source)
        do {
            try started.delivery.start()
            try started.producer.start()
        } catch {
            run.queue.cancel()
            run.queue.finish()
            run.producing.store(false, ordering: .releasing)
            throw error
        }
        return started
    }

    /// Waits for the current run to end: its end-of-stream delivered and its threads joined.
    /// - Throws: the producer's error, or the upload's, after end-of-stream.
    public func finish() async throws {
        guard let current = state.withLock({ $0.current }) else { return }
        try await end(current)
    }

    private func end(_ started: Started) async throws {
        for thread in started.threads { await thread.join() }
        if let failure = started.run.failure.withLock({ $0 }) { throw failure }
    }

    /// Blocks until the current run's producer thread has ended and is joined: for an owner that
    /// told its producer to end (a camera's `stop()`) before it starts the next run. Returns at
    /// once when there is none; never waits for the graph.
    package func joinProducer() {
        state.withLock { $0.current?.producer }?.joinBlocking()
    }

    /// Stops the current run without waiting: the producer stops at its next picture, no further
    /// frame is delivered, end-of-stream is sent and the run ends. Safe from any thread, including
    /// a sink on the render thread; the first half of `close()`.
    package func cancel() {
        state.withLock { $0.current?.run.queue }?.cancel()
    }

    /// Stops the current run, if any, and returns once every thread the runner started is joined.
    public func close() async {
        cancel()
        let threads = state.withLock { ($0.previous?.threads ?? []) + ($0.current?.threads ?? []) }
        for thread in threads { await thread.join() }
    }

    // MARK: The threads

    /// The producer thread: makes pictures and puts them in the queue, then end-of-stream.
    private func producerThread(_ producer: sending any FrameProducer, _ run: Run) -> JoinableThread {
        nonisolated(unsafe) var producer = producer  // handed to the producer thread, used by it alone
        let queue = run.queue
        let control = ProducerControl(queue: queue) { change in run.count(change) }
        return JoinableThread(name: name, group: run.context.threads) { [policy] in
            defer {
                run.producing.store(false, ordering: .releasing)
                queue.post(.endOfStream)
                queue.finish()
            }
            do {
                while !queue.isCancelled, case .picture(var buffer, let orientation) = try producer.next(control) {
                    buffer.sequenceNumber = run.statistics.withLock { $0.framesSoFar }
                    let outcome = queue.put(buffer, orientation: orientation, policy: policy)
                    guard outcome != .closed else { return }
                    run.count { statistics in
                        statistics.produced += 1
                        if outcome == .replacedOlder { statistics.countDrop(.replacedByNewer) }
                    }
                }
            } catch {
                queue.post(.failure(error))
            }
        }
    }

    private func deliveryThread(_ run: Run) -> JoinableThread {
        JoinableThread(name: "\(name) delivery", group: run.context.threads) { [policy] in
            for thread in run.predecessors.withLock({ $0 }) { thread.joinBlocking() }
            Self.deliver(run, policy: policy)
        }
    }

    /// How often a run publishes its counters (`.statistics`) while it delivers, on the context's clock.
    static let statisticsInterval: Duration = .seconds(1)

    /// Takes each item off the run's queue and hands it to the render thread, until the queue is
    /// finished; every `statisticsInterval`, publishes the counters.
    private static func deliver(_ run: Run, policy: SourcePolicy) {
        let (queue, context) = (run.queue, run.context)
        var schedule = RealTimeSchedule(tolerance: run.frameInterval, clock: context.clock)
        var nextReport = context.clock.now + statisticsInterval
        while let item = queue.pop() {
            let node = run.node  // weak: the delivery thread must not keep its node alive
            switch item {
            case let .frame(buffer, orientation):
                guard let node, !queue.isCancelled else {
                    run.count { $0.countDrop(.stopped) }
                    continue
                }
                if run.pacing == .realTime {
                    guard let due = schedule.due(buffer.timestamp) else {
                        run.count { $0.countDrop(.late) }
                        continue
                    }
                    guard queue.sleep(until: due, on: context.clock) else {
                        run.count { $0.countDrop(.stopped) }  // cancelled while it waited for its time
                        continue
                    }
                }
                do {
                    try context.performAndWait { context in
                        try FrameOrigin.$current.withValue(FrameOrigin(source: node, policy: policy, pacing: run.pacing)) {
                            try node.deliver(buffer, orientation: orientation, in: context)  // fused where it can be
                        }
                    }
                    run.count { $0.delivered += 1 }
                    let now = context.clock.now
                    if now >= nextReport {
                        nextReport = now + statisticsInterval
                        context.publish(.statistics(SourceProgress(node: run.nodeReference,
                                                                   statistics: run.statistics.withLock { $0 })))
                    }
                } catch {
                    run.count { $0.countDrop(.failed) }
                    if policy == .newestWins {
                        context.report(error, from: run.nodeReference)  // a live source goes on with the next picture
                    } else {
                        fail(run, error)
                    }
                }
            case .damage(let error):
                run.count { $0.damaged += 1 }
                context.report(error, from: run.nodeReference)
            case .report(let error):
                context.report(error, from: run.nodeReference)
            case .failure(let error):
                fail(run, error)
            case .endOfStream:
                guard let node else { continue }
                _ = try? context.performAndWait { context in
                    FrameOrigin.$current.withValue(FrameOrigin(source: node, policy: policy, pacing: run.pacing)) {
                        node.deliverEndOfStream(in: context)
                    }
                }
            }
        }
        let failed = run.failure.withLock { $0 != nil }
        context.publish(.sourceEnded(SourceEnd(node: run.nodeReference, statistics: run.statistics.withLock { $0 },
                                               failed: failed)))
    }

    /// Ends the run with `error` (the first one wins), which is a `.failed` event and what
    /// `finish`/`run` throw.
    private static func fail(_ run: Run, _ error: any Error) {
        run.queue.cancel()
        let first = run.failure.withLock { failure -> Bool in
            guard failure == nil else { return false }
            failure = error
            return true
        }
        if first { run.context.report(error, from: run.nodeReference, thrownByRun: true) }
    }
}
