import Foundation

/// The one path from the render thread to a worker that takes frames on the CPU (a file, an
/// encoder, a frame consumer): on the render thread, pack the frame's planes
/// on the GPU, insert a fence and queue them (bounded: wait or drop when full); on a worker thread
/// with a shared GL context, wait for the fence, read back into a reused buffer and hand it to a
/// `FrameWriter` (x264 + MP4, Y4M, raw RGBA, a picture). The render thread never waits for the
/// disk, only for room in the queue with the `.wait` policy.
///
/// With the context's `ReadbackPlacement.renderThread` (software renderers) the render thread
/// reads the packed planes back itself, into buffers the worker hands back, and queues the CPU
/// frame; the worker then holds no GL context and only writes. The render thread does not wait
/// for the renderer to draw a frame: it holds the packed frames (`HeldReadbacks`) and reads each
/// once its fence has signalled (a frame that `waitsUntilWritten`, or for a sink that drops or
/// replaces frames when full, is read at once). A finish reads the frames still held, on the
/// render thread, before the worker is told to end.
///
/// Owned by one node (or recording); it holds nothing of its owner. Failures go to the render
/// context's events under the owner's name, and, with every other ending, to `onEnd` (on
/// the thread that ends the run) and to whoever awaits `outcome()`, which joins the worker.
package final class ReadbackSink: Sendable {
    /// What the sink reads back and how it queues.
    package struct Configuration: Sendable {
        /// The output's path, for errors.
        package var path: String
        /// The worker thread is `ELImage.<threadName>`.
        package var threadName: String
        package var format: PixelFormat
        /// nil: each frame's own.
        package var colorSpace: ColorSpace? = nil
        /// nil: each frame's own (`TextureFrame.chromaLocation`).
        package var chromaLocation: ChromaLocation? = nil
        package var chromaDownsampling: ChromaDownsampling = .matched
        package var capacity = 4
        package var whenQueueFull = QueueFullPolicy.wait
        /// true: `take` returns only once the worker has written the frame (none is dropped, and
        /// what the writer does for it happens before the frame goes on through the graph).
        package var waitsUntilWritten = false
        /// true: the sink takes pictures only (RGBA), never a mask or a plane (`holdsPicture`).
        package var picturesOnly = false

        package init(path: String, threadName: String, format: PixelFormat, colorSpace: ColorSpace? = nil,
                     chromaLocation: ChromaLocation? = nil, chromaDownsampling: ChromaDownsampling = .matched,
                     capacity: Int = 4, whenQueueFull: QueueFullPolicy = .wait, waitsUntilWritten: Bool = false,
                     picturesOnly: Bool = false) {
            self.path = path
            self.threadName = threadName
            self.format = format
            self.colorSpace = colorSpace
            self.chromaLocation = chromaLocation
            self.chromaDownsampling = chromaDownsampling
            self.capacity = capacity
            self.whenQueueFull = whenQueueFull
            self.waitsUntilWritten = waitsUntilWritten
            self.picturesOnly = picturesOnly
        }

        /// What the sink does per frame, for a printed plan (`PlanExplanation`), where the
        /// readback is at `placement` (nil: not known yet, said as on the worker).
        package func planSummary(placement: ReadbackPlacement?) -> String {
            (format == .rgba ? "RGBA" : "packs \(format.rawValue.uppercased())"
                + (format.planeCount > 1 ? " (\(chromaDownsampling) chroma)" : ""))
                + (placement == .renderThread
                    ? " and reads it back on the render thread (one GL context), writes on ELImage.\(threadName)"
                    : " on the render thread, reads back on ELImage.\(threadName)")
                + " (queue of \(capacity), \(waitsUntilWritten ? "waits until written" : "when full: \(whenQueueFull)"))"
        }

        /// What a `PackingSink` reading back with this configuration packs into: nil for RGBA.
        package var packing: (format: PixelFormat, chromaDownsampling: ChromaDownsampling)? {
            format == .rgba ? nil : (format, chromaDownsampling)
        }
    }

    /// How a run ended without an error.
    package enum Ending: Sendable, Equatable {
        /// Finished on request (or end of stream) and published.
        case finished
        /// The writer said it was full; finished and published.
        case full
        /// Cancelled: the output was removed.
        case cancelled
        /// No frame arrived: nothing was written.
        case empty
    }

    /// The counters, kept under one lock (the queue's counts under its own, read together).
    package struct Counts: Sendable {
        /// Frames that got into the queue.
        package var accepted = 0
        /// Frames dropped because the queue was full (`.drop`).
        package var rejected = 0
        /// Frames dropped from the queue for a newer one (`.replaceOldest`).
        package var replaced = 0
        package var highWater = 0
        /// Frames whose GPU packing failed.
        package var conversionFailures = 0
        /// Frames the writer took.
        package var written = 0
        package var readbackTime: Duration = .zero
        package var writeTime: Duration = .zero
        package var ended = false
        /// Frames packed and held for a later readback on the render thread
        /// (`ReadbackPlacement.renderThread`) that a stop, a cancel or a failure let go before they
        /// were queued: still held, or read back as the queue closed.
        package var letGoUnqueued = 0
        /// Frames that got in and were not written (left in the queue at a failure, a limit or a
        /// cancel; not those replaced by newer ones): `accepted - replaced - written`, and those
        /// let go unqueued, once the run has ended.
        package var lost: Int { ended ? max(0, accepted - replaced - written) + letGoUnqueued : 0 }
        /// Frames dropped: refused or replaced with a full queue, or lost once the run has ended.
        package var dropped: Int { rejected + replaced + lost }
    }

    private enum Message: Sendable {
        /// Packed planes for the worker to read back.
        case frame(FrameHandoff, time: Int64, number: Int)
        /// A frame the render thread read back (`ReadbackPlacement.renderThread`).
        case picture(PixelBuffer, time: Int64, number: Int)
        /// The render thread could not read a frame back: the run fails.
        case failed(ELImageError)
        case finish
        case cancel

        var isFailure: Bool { if case .failed = self { true } else { false } }
    }

    private struct SinkState {
        var closing = false
        var cancelRequested = false
        var threadStarted = false
        var context: RenderContext?
        /// The owner in failures and events, given with its first frame.
        var node = NodeReference(name: "ReadbackSink", id: nil)
        var framesTaken = 0
        var counts = Counts()
        /// The source of the first frame (`FrameOrigin`), for the writer's `open`; let go once
        /// the writer is made.
        var firstSource: (any ImageOutput)?
    }

    package let configuration: Configuration
    package var path: String { configuration.path }
    private let queue: HandoffQueue<Message>
    private let state = Locked(SinkState())
    private let result = WorkerOutcome<Ending>()
    /// Buffers the worker has written, for the next readbacks to read into (on the render thread
    /// or the worker).
    private let spareBuffers = Locked<[PixelBuffer]>([])
    /// `ReadbackPlacement.renderThread`: frames packed and not read back yet.
    private let held: HeldReadbacks
    private let open: @Sendable (PixelBuffer, (any ImageOutput)?) throws -> any FrameWriter
    private let sourceOfFrame: @Sendable () -> (any ImageOutput)?
    private let unused: @Sendable () -> Void
    private let onEnd: @Sendable (Result<Ending, ELImageError>, Counts) -> Void

    /// - Parameters:
    ///   - open: makes the writer for the first frame read back (on the worker thread).
    ///   - unused: cleans up when the run ends before a writer was made (a staged file).
    ///   - onEnd: hears how the run ended and the final counts, once, before `outcome()` does.
    package convenience init(_ configuration: Configuration,
                             open: @escaping @Sendable (PixelBuffer) throws -> any FrameWriter,
                             unused: @escaping @Sendable () -> Void = {},
                             onEnd: @escaping @Sendable (Result<Ending, ELImageError>, Counts) -> Void = { _, _ in }) {
        self.init(configuration, openFromSource: { picture, _ in try open(picture) }, firstSource: { nil }, unused: unused,
                  onEnd: onEnd)
    }

    /// - Parameters:
    ///   - openFromSource: makes the writer for the first frame read back (on the worker
    ///     thread), told the source that frame came from: a file keeps a movie's sound.
    ///   - firstSource: the source of the frame being taken, asked on the render thread at the
    ///     first frame (the owner's `FrameOrigin.current?.source`; nil for a frame pushed another
    ///     way).
    ///   - unused: cleans up when the run ends before a writer was made (a staged file).
    ///   - onEnd: hears how the run ended and the final counts, once, before `outcome()` does.
    package init(_ configuration: Configuration,
                 openFromSource: @escaping @Sendable (PixelBuffer, (any ImageOutput)?) throws -> any FrameWriter,
                 firstSource: @escaping @Sendable () -> (any ImageOutput)?,
                 unused: @escaping @Sendable () -> Void = {},
                 onEnd: @escaping @Sendable (Result<Ending, ELImageError>, Counts) -> Void = { _, _ in }) {
        self.configuration = configuration
        self.open = openFromSource
        sourceOfFrame = firstSource
        self.unused = unused
        self.onEnd = onEnd
        queue = HandoffQueue(capacity: configuration.capacity)
        held = HeldReadbacks(limit: configuration.capacity)
    }

    /// The counters now.
    package var counts: Counts {
        let queued = queue.statistics
        return state.withLock { state in
            var counts = state.counts
            (counts.accepted, counts.rejected, counts.replaced, counts.highWater)
                = (queued.accepted, queued.rejected, queued.replaced, queued.highWaterMark)
            return counts
        }
    }

    /// The sink as a hop of a `FrameAccount`, named `name`: every frame taken, those written, and
    /// why the others were not.
    package func frameHop(named name: String) -> FrameHop {
        let counts = counts
        return FrameHop(name: name, framesIn: counts.accepted + counts.rejected + counts.letGoUnqueued + counts.conversionFailures,
                        passedOn: counts.written, drops: [
                            .init(counts.rejected, "the queue was full"),
                            .init(counts.replaced, "a newer frame replaced it in the queue"),
                            .init(counts.conversionFailures, "its conversion on the GPU failed"),
                            .init(counts.lost, "still queued when the output ended"),
                        ])
    }

    package var isClosing: Bool { state.withLock { $0.closing } }

    /// Whether frames are read back on the render thread (known once a frame was taken).
    package var readsBackOnRenderThread: Bool {
        state.withLock { $0.context?.readbackPlacement == .renderThread }
    }

    /// What the sink does per frame, for a printed plan, where its context reads back.
    package var planSummary: String {
        configuration.planSummary(placement: state.withLock { $0.context?.readbackPlacement })
    }

    // MARK: Render thread

    /// Packs `frame` (an RGBA frame or a fused line's picture), fences and queues it, stamped
    /// `time`; starts the worker at the first frame.
    /// Returns true when this call started the worker (the owner registers with `context` then).
    /// - Parameters:
    ///   - format: overrides the configuration's (a device that renegotiated its format).
    ///   - colorSpace: overrides the configuration's (a recording fixes it at its start).
    ///   - chromaLocation: overrides the configuration's (a recording fixes it at its start).
    ///   - owner: the node that owns the sink, named in its failures (not kept).
    ///   - waitsUntilWritten: overrides the configuration's for this frame (a detector decides
    ///     by the frame's source).
    @discardableResult
    package func take(_ frame: any PackablePicture, time: Int64, format: PixelFormat? = nil, colorSpace: ColorSpace? = nil,
                      chromaLocation: ChromaLocation? = nil, owner: AnyObject, waitsUntilWritten: Bool? = nil,
                      in context: isolated RenderContext) throws -> Bool {
        let ticket = state.withLock { state -> (number: Int, startThread: Bool)? in
            guard !state.closing else { return nil }
            if state.context == nil { state.node = NodeReference(owner) }
            state.context = context
            state.framesTaken += 1
            if !state.threadStarted { state.firstSource = sourceOfFrame() }
            defer { state.threadStarted = true }
            return (state.framesTaken - 1, !state.threadStarted)
        }
        guard let ticket else { return false }
        let readsHere = context.readbackPlacement == .renderThread
        if ticket.startThread {
            do {
                let thread = try context.makeWorker(name: "ELImage.\(configuration.threadName)",
                                                    sharingGL: !readsHere) { [self] error in
                    if let error { fail(error, writer: nil) } else { run() }
                }
                result.attach(thread)
                try thread.start()
            } catch {
                // No thread: the run fails; the frames that follow find it closed.
                state.withLock { $0.threadStarted = false }
                fail(error as? ELImageError ?? .invalidState(node: configuration.threadName, reason: "\(error)"), writer: nil)
                return false
            }
        }
        // The queue counts what got in and what was dropped; a frame that finds it closed (the
        // run stopped or failed meanwhile) is not part of the output.
        let waits = waitsUntilWritten ?? configuration.waitsUntilWritten
        let number = ticket.number
        let pending: PendingReadback
        do {
            pending = try context.prepareReadback(
                of: frame, as: format ?? configuration.format, colorSpace: colorSpace ?? configuration.colorSpace ?? frame.colorSpace,
                chromaLocation: chromaLocation ?? configuration.chromaLocation ?? frame.chromaLocation,
                chromaDownsampling: configuration.chromaDownsampling)
        } catch {
            state.withLock { $0.counts.conversionFailures += 1 }
            throw error
        }
        guard readsHere else {
            enqueue(.frame(FrameHandoff(pending), time: time, number: number), waits: waits, in: context)
            return ticket.startThread
        }
        let packed = HeldReadbacks.Frame(pending: pending, time: time, number: number)
        // A sink that drops or replaces frames when full wants each as soon as it is drawn (the
        // newest wins); so does one that waits until each is written.
        if waits || configuration.whenQueueFull != .wait {
            readHeld(all: true, in: context)
            enqueue(read(packed), waits: waits, in: context)
        } else {
            if !held.hold(packed) { state.withLock { $0.counts.letGoUnqueued += 1 } }
            readHeld(all: false, in: context)
        }
        return ticket.startThread
    }

    /// Reads back and queues the held frames that can be read without waiting (`HeldReadbacks`;
    /// `all`: every one, waiting for the renderer), and polls for the rest.
    private func readHeld(all: Bool, in context: isolated RenderContext) {
        held.delivering {
            for frame in held.takeReady(all: all) { enqueue(read(frame), waits: false, in: context) }
        }
        if !held.isEmpty { schedulePoll(on: context) }
    }

    /// In a few milliseconds on the render thread, reads the held frames back if the renderer has
    /// drawn them all by then (no new frame came to push them on).
    private func schedulePoll(on context: RenderContext) {
        guard held.beginPoll() else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Self.pollMilliseconds)) { [self] in
            context.onRenderThread({ [self] context in
                held.endPoll()
                held.delivering {
                    for frame in held.takeAllIfDrawn() { enqueue(read(frame), waits: false, in: context) }
                }
                if !held.isEmpty { schedulePoll(on: context) }
            }, ifClosed: { [self] in held.endPoll() })
        }
    }

    /// How often held frames are checked while no new frame comes.
    private static let pollMilliseconds = 3

    /// Queues `message` with the configured policy (waiting for room and until it is written
    /// when `waits`; a failure always waits for room, never dropped); a frame the policy drops is
    /// a `.dropped` event.
    private func enqueue(_ message: Message, waits: Bool, in context: isolated RenderContext) {
        let whenFull: HandoffQueue<Message>.WhenFull = if waits || message.isFailure { .wait } else {
            switch configuration.whenQueueFull {
            case .wait: .wait
            case .drop: .refuse
            case .replaceOldest: .replaceOldest
            }
        }
        let outcome = queue.push(message, whenFull: whenFull, waitUntilHandled: waits)
        if outcome == .closed, case .picture = message {
            // Read back from the frames held here while a stop, cancel or failure closed the
            // queue: taken before it, so lost (a frame taken after it is not part of the output).
            state.withLock { $0.counts.letGoUnqueued += 1 }
        }
        if outcome == .refused || outcome == .replacedOlder {
            let statistics = queue.statistics
            let node = state.withLock { $0.node }
            context.publish(.dropped(FrameDrop(node: node, count: 1, total: statistics.rejected + statistics.replaced)))
        }
    }

    /// Lets the held frames go unread (a stop, cancel or failure), and holds none from now on.
    private func letGoHeld() {
        let count = held.letGoAll()
        if count > 0 { state.withLock { $0.counts.letGoUnqueued += count } }
    }

    /// Reads `frame` back here, on the render thread: the message that hands it (or the failure)
    /// to the worker.
    private func read(_ frame: HeldReadbacks.Frame) -> Message {
        switch readBack(frame.pending, number: frame.number) {
        case .success(let picture): .picture(picture, time: frame.time, number: frame.number)
        case .failure(let error): .failed(error)
        }
    }

    /// Reads `pending` back into a spare buffer (waiting for the renderer if it has not drawn it
    /// yet) and counts the time; on whichever thread reads back (the render thread or the worker).
    private func readBack(_ pending: PendingReadback, number: Int) -> Result<PixelBuffer, ELImageError> {
        let start = ContinuousClock.now
        let buffer: PixelBuffer
        do {
            buffer = try pending.read(reusing: spareBuffers.withLock { $0.popLast() }, frame: number, file: path)
        } catch {
            return .failure(Self.failure(error, frame: number, path: path))
        }
        let elapsed = ContinuousClock.now - start
        state.withLock { $0.counts.readbackTime += elapsed }
        return .success(buffer)
    }

    /// `take(_:time:owner:in:)` for a sink node that owns this readback and closes with its
    /// context: registers `owner` with `context` when this frame started the worker.
    package func take(_ frame: any PackablePicture, registering owner: any ClosableNode,
                      in context: isolated RenderContext) throws {
        if try take(frame, time: 0, owner: owner, in: context) { context.register(owner, stage: .sink) }
    }

    // MARK: Control (any thread)

    /// No more frames: the worker writes what is queued, finishes and publishes the output.
    package func requestFinish() { close(with: .finish, cancelling: false, readingHeld: true) }

    /// Stops at once: the frames still queued are let go (counted as lost); the worker completes
    /// and publishes the output with the frames it wrote (also when a finish is already on its
    /// way).
    package func requestStop() {
        close(with: .finish, cancelling: false, readingHeld: false)
        queue.discardWaiting()
    }

    /// Stops at once and removes the output (also when a finish is already on its way: the
    /// worker sees the cancel before it publishes).
    package func requestCancel() { close(with: .cancel, cancelling: true, readingHeld: false) }

    /// Closes the queue with `last`, or ends the run here when its worker never started. With
    /// the readback on the render thread, the frames held there are read and queued first
    /// (`readingHeld`) or let go.
    private func close(with last: Message, cancelling: Bool, readingHeld: Bool) {
        if !readingHeld { letGoHeld() }
        let closing = state.withLock { state -> (unstarted: Bool, context: RenderContext?)? in
            if cancelling { state.cancelRequested = true }
            guard !state.closing else { return nil }
            state.closing = true
            return (!state.threadStarted, state.context)
        }
        guard let closing else { return }
        if closing.unstarted {
            unused()
            end(.success(cancelling ? .cancelled : .empty))
        } else if readingHeld, let context = closing.context, context.readbackPlacement == .renderThread {
            // After the take in progress, if any: it may hold one more frame. On the render thread
            // at once (nothing else can run there meanwhile), else queued behind its work.
            context.onRenderThread({ [self] context in
                readHeld(all: true, in: context)
                queue.close(with: last)
            }, ifClosed: { [self] in
                letGoHeld()
                queue.close(with: last)
            })
        } else {
            queue.close(with: last)
        }
    }

    /// Waits until the run has ended and its worker thread is joined.
    package func outcome() async -> Result<Ending, ELImageError> {
        await result.value()
    }

    // MARK: Worker thread

    private func run() {
        var writer: (any FrameWriter)?
        while let message = queue.pop() {
            var picture: PixelBuffer
            let (time, number): (Int64, Int)
            switch consume message {  // the picture's only owner, so its bytes are reused, not copied
            case let .frame(handoff, frameTime, frameNumber):
                // Read, then release the planes (their textures go back to the pool) before writing.
                guard let pending = handoff.take() else { continue }
                (time, number) = (frameTime, frameNumber)
                switch readBack(pending, number: number) {
                case .success(let read): picture = read
                case .failure(let error):
                    fail(error, writer: writer)
                    return
                }
            case let .picture(read, frameTime, frameNumber):
                (picture, time, number) = (read, frameTime, frameNumber)
            case let .failed(error):
                fail(error, writer: writer)
                return
            case .finish:
                guard let writer else {
                    unused()
                    end(.success(.empty))
                    return
                }
                finish(writer, ending: .finished)
                return
            case .cancel:
                if let writer { writer.discard() } else { unused() }
                queue.close(discarding: true)
                end(.success(.cancelled))
                return
            }
            let writeStart = ContinuousClock.now
            let verdict: FrameWriteVerdict
            do {
                let current = try writer ?? open(picture, state.withLock { state in
                    defer { state.firstSource = nil }
                    return state.firstSource
                })
                writer = current
                verdict = try current.write(&picture, time: time, frame: number)
            } catch {
                fail(Self.failure(error, frame: number, path: path), writer: writer)
                return
            }
            giveBack(picture)
            let elapsed = ContinuousClock.now - writeStart
            state.withLock { state in
                state.counts.written += 1
                state.counts.writeTime += elapsed
            }
            queue.markHandled()  // a `waitsUntilWritten` take goes on, the frame counted
            if verdict == .full, let writer {
                finish(writer, ending: .full)
                return
            }
        }
    }

    /// Keeps a written buffer to read a later frame into: as many as can be in flight (the
    /// queue, the one being written, the one being read).
    private func giveBack(_ picture: PixelBuffer) {
        spareBuffers.withLock { spare in
            if spare.count < configuration.capacity + 2 { spare.append(picture) }
        }
    }

    /// Completes the output after the frames written, then publishes it (or removes it when a
    /// cancel came meanwhile).
    private func finish(_ writer: any FrameWriter, ending: Ending) {
        letGoHeld()  // a writer that is full takes no more
        state.withLock { $0.closing = true }
        queue.close(discarding: true)
        do {
            try writer.finish()
        } catch {
            fail(Self.failure(error, frame: nil, path: path), writer: writer)
            return
        }
        if state.withLock({ $0.cancelRequested }) {
            writer.discard()
            end(.success(.cancelled))
            return
        }
        do {
            try writer.publish()
        } catch {
            // The output is complete under its temporary name (the error says where): kept.
            report(Self.failure(error, frame: nil, path: path))
            return
        }
        end(.success(ending))
    }

    /// Ends the run after `error`: the writer keeps what it wrote (a cancelled run's output is
    /// removed), the error is a `.failed` event of the context and goes to `outcome()`.
    private func fail(_ error: ELImageError, writer: (any FrameWriter)?) {
        letGoHeld()
        let cancelled = state.withLock { state -> Bool in
            state.closing = true  // no frame is taken in from now on
            return state.cancelRequested
        }
        queue.close(discarding: true)
        if let writer {
            if cancelled { writer.discard() } else { writer.salvage(after: error) }
        } else {
            unused()
        }
        report(error)
    }

    private func report(_ error: ELImageError) {
        let (context, node) = state.withLock { ($0.context, $0.node) }
        context?.report(error, from: node)
        end(.failure(error))
    }

    /// Records how the run ended (the worker's last act, when it ran), and says so on the
    /// context's events.
    private func end(_ outcome: Result<Ending, ELImageError>) {
        // Held frames the render thread is reading back while the queue closed are counted (as
        // let go) when they find it closed: wait for that before the counts are final.
        held.waitForDeliveries()
        let (context, node) = state.withLock { state in
            state.closing = true
            state.counts.ended = true
            state.firstSource = nil
            return (state.context, state.node)
        }
        let counts = self.counts
        onEnd(outcome, counts)
        context?.publish(.sinkFinished(SinkEnd(
            node: node, path: path, outcome: Self.outcome(of: outcome), framesWritten: counts.written,
            framesDropped: counts.dropped)))
        result.record(outcome)
    }

    private static func outcome(of result: Result<Ending, ELImageError>) -> SinkEnd.Outcome {
        switch result {
        case .success(.finished): .finished
        case .success(.full): .limitReached
        case .success(.cancelled): .cancelled
        case .success(.empty): .empty
        case .failure: .failed
        }
    }

    /// `error` as a failure of the output at `path`, naming the frame when it is known.
    package static func failure(_ error: Error, frame: Int?, path: String) -> ELImageError {
        guard let error = error as? ELImageError else {
            return .malformedMedia(file: path, frame: frame, reason: "\(error)")
        }
        if let frame, case let .invalidState(_, reason) = error {
            return .malformedMedia(file: path, frame: frame, reason: reason)
        }
        return error
    }

    /// Holds a frame's planes until the worker takes them, so they are released right after the
    /// readback rather than when the message goes out of scope.
    private final class FrameHandoff: Sendable {
        private let pending: Locked<PendingReadback?>
        init(_ pending: PendingReadback) { self.pending = Locked(pending) }
        func take() -> PendingReadback? {
            pending.withLock { pending in
                defer { pending = nil }
                return pending
            }
        }
    }
}
