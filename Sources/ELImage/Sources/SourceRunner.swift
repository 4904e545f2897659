/// Runs a source node: the one path from a source's pictures to its targets, used by cameras,
/// movies, still images, Y4M and raw YUV files alike.
///
/// ```
/// producer thread ──► SourceQueue (policy) ──► delivery thread ──performAndWait──► render thread
///  (FrameProducer, or            back-pressure    pacing, statistics,        upload, deliver to
///   a camera's capture thread)   or newest-wins   damage, end of stream      the node's targets
/// ```
///
/// - The producer makes pictures on a thread the runner owns (`run(_:for:on:pacing:frameInterval:)`);
///   a camera, whose capture threads come and go with its device, offers them (`offer`).
/// - The delivery thread is a plain thread that hands each picture to the render thread with
///   `RenderContext.performAndWait`: deliveries never wait for a free cooperative thread (which
///   blocking code elsewhere in a program can use up) and keep their order.
/// - The policy (`SourcePolicy`): files wait for the graph and lose nothing; cameras never wait,
///   the newest picture wins and the dropped ones are counted.
/// - Pacing (`SourcePacing`): as fast as the graph takes frames, or in real time with late frames
///   dropped.
/// - Errors: damage goes to the context's error handler and the run goes on; a producer's thrown
///   error ends the run after the frames before it and end-of-stream, and `run` throws it.
/// - `close()` stops the run and returns once every thread the runner started is joined.
public final class SourceRunner: Sendable {
    private struct Run {
        let queue: SourceQueue
        weak var node: (any ImageOutput & ClosableNode)?
        /// The node's name for error reports (`Camera#1a2b`), kept when the node itself is gone.
        let nodeName: String
        let context: RenderContext
        let pacing: SourcePacing
        let frameInterval: Duration
        /// True while a camera offers pictures from its own threads (no producer thread).
        var offered = false
        var delivery: JoinableThread?
        var failure: (any Error)?
        /// Tasks waiting in `close()` for a producer run to end.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct State {
        var run: Run?
        var statistics = SourceStatistics()
        /// A camera's node and context, for the delivery thread started at its first picture.
        weak var offeringNode: (any ImageOutput & ClosableNode)?
        var offeringNodeName: String?
        var offeringContext: RenderContext?
    }

    /// The name of the producer thread; the delivery thread adds " delivery".
    public let name: String
    /// What happens when pictures come faster than the graph takes them.
    public let policy: SourcePolicy
    private let state = Locked(State())

    public init(name: String, policy: SourcePolicy) {
        self.name = name
        self.policy = policy
    }

    /// Counters of the current or last run.
    public var statistics: SourceStatistics { state.withLock { $0.statistics } }

    /// True when no picture or event waits and none is being delivered.
    public var isIdle: Bool { state.withLock { $0.run?.queue }?.isIdle ?? true }

    // MARK: Producer runs (files)

    /// Runs `producer` on a new thread and delivers what it makes to `node`'s targets, paced by
    /// `pacing` (`frameInterval`: how late a frame may be in real time); sends end-of-stream at the
    /// end and returns once both threads are joined. The node is registered with `context`, whose
    /// `close()` stops the run. Cancelling the calling task stops it like `cancel()`.
    /// - Throws: the producer's error, or the upload's, after end-of-stream;
    ///   `ELImageError.invalidState` when a run of this runner is going on.
    public func run(_ producer: sending any FrameProducer, for node: some ImageOutput & ClosableNode,
                    on context: RenderContext, pacing: SourcePacing = .asFastAsPossible,
                    frameInterval: Duration = .milliseconds(40)) async throws {
        let queue = SourceQueue(policy: policy)
        try state.withLock { state in
            guard state.run == nil else {
                throw ELImageError.invalidState(node: String(describing: type(of: node)),
                                                reason: "run(on:) was called while a run is going on; wait for it to end, or cancel() it first")
            }
            state.run = Run(queue: queue, node: node, nodeName: NodeFailure.name(of: node), context: context,
                            pacing: pacing, frameInterval: frameInterval)
            state.statistics = SourceStatistics()
        }
        if context.isClosed { queue.cancel() }
        context.register(node, stage: .source)
        nonisolated(unsafe) var producer = producer  // handed to the producer thread, used by it alone
        let control = ProducerControl(queue: queue)
        let producing = JoinableThread(name: name, group: context.threads) { [self] in
            defer {
                queue.post(.endOfStream)
                queue.finish()
            }
            do {
                while !queue.isCancelled, case let .picture(buffer, orientation) = try producer.next(control) {
                    let outcome = queue.put(buffer, orientation: orientation)
                    guard outcome != .cancelled else { return }
                    count { statistics in
                        statistics.produced += 1
                        if outcome == .replacedOlder { statistics.dropped += 1 }
                    }
                }
            } catch {
                queue.post(.failure(error))
            }
        }
        let delivering = deliveryThread(for: queue, group: context.threads)
        do {
            try delivering.start()
            try producing.start()
        } catch {
            queue.cancel()
            queue.finish()
            await delivering.join()
            endRun()
            throw error
        }
        await withTaskCancellationHandler {
            await producing.join()
            await delivering.join()
        } onCancel: {
            queue.cancel()
        }
        if let failure = endRun() { throw failure }
    }

    /// Stops the current producer run: the producer stops at its next picture, no further frame is
    /// delivered, end-of-stream is sent and `run` returns. Safe from any thread, including a sink on
    /// the render thread.
    public func cancel() {
        state.withLock { $0.run?.offered == false ? $0.run?.queue : nil }?.cancel()
    }

    /// Stops the current run, if any, and returns once it has ended and every thread the runner
    /// started is joined. A camera's pictures still waiting are delivered first.
    public func close() async {
        let offered = state.withLock { state -> Run? in
            state.offeringContext = nil  // no delivery thread starts after close
            guard let run = state.run, run.offered else { return nil }
            state.run = nil
            return run
        }
        if let offered {
            offered.queue.finish()
            await offered.delivery?.join()
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let running = state.withLock { state -> Bool in
                guard let run = state.run else { return false }
                run.queue.cancel()
                state.run?.idleWaiters.append(continuation)
                return true
            }
            if !running { continuation.resume() }
        }
    }

    /// Marks the runner idle, wakes the tasks waiting in `close()`, and returns the run's failure.
    @discardableResult
    private func endRun() -> (any Error)? {
        let run = state.withLock { state in
            defer { state.run = nil }
            return state.run
        }
        run?.idleWaiters.forEach { $0.resume() }
        return run?.failure
    }

    // MARK: Offered pictures (cameras)

    /// Delivers pictures that `node`'s own threads offer to its targets in `context`.
    package func attach(_ node: some ImageOutput & ClosableNode, context: RenderContext) {
        state.withLock { state in
            state.offeringNode = node
            state.offeringNodeName = NodeFailure.name(of: node)
            state.offeringContext = context
        }
    }

    /// Offers a picture (counted as produced); true when it replaced an older waiting one, which
    /// is dropped. Starts the delivery thread at the first picture. Never waits under `.newestWins`.
    @discardableResult
    package func offer(_ buffer: PixelBuffer, orientation: Orientation) -> Bool {
        guard let queue = offeringQueue() else {
            count { $0.produced += 1; $0.dropped += 1 }
            return false
        }
        let outcome = queue.put(buffer, orientation: orientation)
        count { statistics in
            statistics.produced += 1
            if outcome != .queued { statistics.dropped += 1 }
        }
        return outcome == .replacedOlder
    }

    /// Passes `error` to the context's error handler, in order with the pictures.
    package func report(_ error: any Error) {
        offeringQueue()?.post(.report(error))
    }

    /// Sends end-of-stream to the targets after the pictures offered so far.
    package func endStream() {
        offeringQueue()?.post(.endOfStream)
    }

    /// Changes the counters (a camera's own counts: damaged frames, driver skips, intervals).
    package func count(_ change: (inout SourceStatistics) -> Void) {
        state.withLock { change(&$0.statistics) }
    }

    /// Lets the delivery thread end without waiting for it: the safety net of a node released
    /// without `close()`.
    package func abandon() {
        state.withLock { $0.run?.queue }?.finish()
    }

    /// The queue of offered pictures, with its delivery thread started; nil without a context.
    private func offeringQueue() -> SourceQueue? {
        let (queue, thread) = state.withLock { state -> (SourceQueue?, JoinableThread?) in
            if let run = state.run { return (run.queue, nil) }
            guard let context = state.offeringContext else { return (nil, nil) }
            let queue = SourceQueue(policy: policy)
            let thread = deliveryThread(for: queue, group: context.threads)
            state.run = Run(queue: queue, node: state.offeringNode, nodeName: state.offeringNodeName ?? name,
                            context: context, pacing: .asFastAsPossible,
                            frameInterval: .zero, offered: true, delivery: thread)
            return (queue, thread)
        }
        if let thread {
            do {
                try thread.start()
            } catch {
                queue?.cancel()
                let (context, nodeName) = state.withLock { ($0.offeringContext, $0.offeringNodeName ?? name) }
                context?.report(error, fromNodeNamed: nodeName)
            }
        }
        return queue
    }

    // MARK: The delivery thread

    private func deliveryThread(for queue: SourceQueue, group: ThreadGroup) -> JoinableThread {
        JoinableThread(name: "\(name) delivery", group: group) { [self] in
            deliver(from: queue)
        }
    }

    /// Takes each item off `queue` and hands it to the render thread, until the queue is finished.
    private func deliver(from queue: SourceQueue) {
        guard let run = state.withLock({ $0.run }), run.queue === queue else {
            while queue.take() != nil {}
            return
        }
        let context = run.context
        var schedule = RealTimeSchedule(tolerance: run.frameInterval)
        while let item = queue.take() {
            let node = run.node  // weak: a camera's delivery thread must not keep the camera alive
            switch item {
            case let .frame(buffer, orientation):
                guard let node, !queue.isCancelled else {
                    count { $0.dropped += 1 }
                    continue
                }
                if run.pacing == .realTime {
                    guard let due = schedule.due(buffer.timestamp), queue.sleep(until: due) else {
                        count { $0.dropped += 1 }
                        continue
                    }
                }
                do {
                    try context.performAndWait { context in
                        node.deliver(try context.makeFrame(from: buffer, orientation: orientation), in: context)
                    }
                    count { $0.delivered += 1 }
                } catch {
                    count { $0.dropped += 1 }
                    if policy == .newestWins {
                        context.report(error, fromNodeNamed: run.nodeName)  // a live source goes on with the next picture
                    } else {
                        fail(error, queue)
                    }
                }
            case .damage(let error):
                count { $0.damaged += 1 }
                context.report(error, fromNodeNamed: run.nodeName)
            case .report(let error):
                context.report(error, fromNodeNamed: run.nodeName)
            case .failure(let error):
                fail(error, queue)
            case .endOfStream:
                guard let node else { continue }
                _ = try? context.performAndWait { context in node.deliverEndOfStream(in: context) }
            }
        }
    }

    /// Ends the run with `error` (the first one wins).
    private func fail(_ error: any Error, _ queue: SourceQueue) {
        queue.cancel()
        state.withLock { state in
            guard state.run?.queue === queue, state.run?.failure == nil else { return }
            state.run?.failure = error
        }
    }
}
