import Dispatch

/// The readback of a sink that takes any number of streams one after the other (a frame
/// callback: `RawDataOutput`, `YUVDataOutput`): one `ReadbackSink` run at a time, finished at each
/// end of stream; the next frame starts the next run. Frames are read back on the run's worker
/// thread (on the render thread with `ReadbackPlacement.renderThread`) and handed to the writer
/// on the worker, never on the render thread. A run's writer opens only
/// once the run before it has ended, so the writer (a user's closure) sees the streams' frames in
/// order, never two runs at once.
package final class ReadbackRuns: Sendable {
    private struct RunsState {
        /// Runs not yet known to have ended, oldest first; the last one takes new frames.
        var runs: [ReadbackSink] = []
        /// The end of the newest run, which the next run's writer waits for.
        var lastRunEnded: RunEnded?
        /// Frames written and dropped by the runs taken out of `runs`.
        var writtenByEndedRuns = 0
        var droppedByEndedRuns = 0
        /// The first failure of a run that ended since the last `finish()` (kept here, since an
        /// ended run leaves `runs` when the next one starts).
        var failureSinceFinish: ELImageError?
        var closed = false
    }

    package let configuration: ReadbackSink.Configuration
    private let makeWriter: @Sendable () -> any FrameWriter
    private let state = Locked(RunsState())

    /// What a run does per frame, for a printed plan.
    package var planSummary: String { state.withLock { $0.runs.last }?.planSummary ?? configuration.planSummary(placement: nil) }

    /// - Parameter makeWriter: makes the writer of a run, on its worker thread, at its first frame.
    init(_ configuration: ReadbackSink.Configuration, makeWriter: @escaping @Sendable () -> any FrameWriter) {
        self.configuration = configuration
        self.makeWriter = makeWriter
    }

    /// Frames handed to the writer so far, over every run.
    package var written: Int {
        state.withLock { state in state.runs.reduce(state.writtenByEndedRuns) { $0 + $1.counts.written } }
    }

    /// Frames dropped (queue full with `.drop`, or left behind by a failure), over every run.
    package var dropped: Int {
        state.withLock { state in state.runs.reduce(state.droppedByEndedRuns) { $0 + $1.dropped } }
    }

    /// Takes `ended` out of the runs, keeping their counts.
    private static func remove(_ ended: [ReadbackSink], from state: inout RunsState) {
        state.writtenByEndedRuns += ended.reduce(0) { $0 + $1.counts.written }
        state.droppedByEndedRuns += ended.reduce(0) { $0 + $1.dropped }
        state.runs.removeAll { run in ended.contains { $0 === run } }
    }

    /// Packs, fences and queues `picture` for the current run (starting one when there is none);
    /// registers `owner` with `context` when a run's worker starts. After `close()` frames are
    /// not taken.
    package func take(_ picture: any PackablePicture, owner: any ClosableNode, in context: isolated RenderContext) throws {
        let runsState = state
        let run = state.withLock { state -> ReadbackSink? in
            guard !state.closed else { return nil }
            if let current = state.runs.last, !current.isClosing { return current }
            Self.remove(state.runs.filter { $0.counts.ended }, from: &state)
            let writer = makeWriter
            let previous = state.lastRunEnded
            let ended = RunEnded()
            let next = ReadbackSink(configuration, open: { _ in
                previous?.wait()  // on this run's worker: the last run's frames are all written first
                return writer()
            }, onEnd: { result, _ in
                if case .failure(let error) = result {
                    runsState.withLock { state in state.failureSinceFinish = state.failureSinceFinish ?? error }
                }
                ended.signal()
            })
            state.runs.append(next)
            state.lastRunEnded = ended
            return next
        }
        guard let run else { return }
        try run.take(picture, registering: owner, in: context)
    }

    /// The stream ended: the current run hands over what is queued and ends.
    package func endOfStream() {
        state.withLock { $0.runs.last }?.requestFinish()
    }

    /// The safety net of an owner released without `finish()` or `close()`: every run hands over
    /// what is queued and ends in the background (never waited for here), so that no worker is
    /// left waiting for frames and the context's `close()` can join it.
    package func release() {
        state.withLock { $0.runs }.forEach { $0.requestFinish() }
    }

    /// Ends the current run after the frames queued, waits until every run has ended and its
    /// worker is joined, and returns the frames written over every run.
    /// - Throws: the first failure of a run that ended since the last `finish()`.
    package func finish() async throws -> Int {
        let runs = state.withLock { $0.runs }
        for run in runs {
            run.requestFinish()
            _ = await run.outcome()  // its failure, if any, was kept when it ended (`onEnd` comes first)
        }
        let failure = state.withLock { state -> ELImageError? in
            Self.remove(runs, from: &state)
            defer { state.failureSinceFinish = nil }
            return state.failureSinceFinish
        }
        if let failure { throw failure }
        return written
    }

    /// Takes no more frames and stops every run: what is queued is let go; returns once every
    /// worker is joined (failures are the context's events).
    package func close() async {
        let runs = state.withLock { state in
            state.closed = true
            return state.runs
        }
        for run in runs {
            run.requestStop()
            _ = await run.outcome()
        }
        state.withLock { Self.remove(runs, from: &$0) }
    }
}

/// The end of one run, waited for on the next run's worker thread.
final class RunEnded: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// The run ended (once).
    func signal() { semaphore.signal() }

    /// Blocks until the run has ended; returns at once afterwards.
    func wait() {
        semaphore.wait()
        semaphore.signal()
    }
}
