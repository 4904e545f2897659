/// A render context's events from the moment this sequence was made (`RenderContext.events`),
/// in order, ending after `.closed`.
///
/// ```swift
/// let events = context.events                 // subscribed now: nothing after this is missed
/// let log = Task {
///     for await event in events {
///         if case .failed(let failure) = event { print("error: \(failure)") }
///     }                                       // ends when the context closes
/// }
/// try await movie.run(on: context)
/// await context.close()
/// await log.value
/// ```
///
/// **Buffering.** Each sequence keeps the events its consumer has not taken yet, up to
/// `capacity` (256 by default): publishing never waits for a consumer, so a slow one never holds
/// the render thread or a worker. Frame drops of one node not yet taken merge into one event. When
/// the buffer is full, the oldest failure or drop makes room and the consumer gets `.lost(count)`
/// in its place; ends (`.sourceEnded`, `.sinkFinished`, `.closed`) are never lost. Counters
/// samples (`.statistics`) are the newest per source: one not yet taken is replaced by the next,
/// and they give way first, uncounted, when room is needed.
///
/// Iterate a sequence once, from one task; make another sequence for another consumer. Cancelling
/// the iterating task ends the iteration. Releasing the sequence unsubscribes it.
public struct RenderEvents: AsyncSequence, Sendable {
    public typealias Failure = Never

    let subscription: EventSubscription

    public func makeAsyncIterator() -> Iterator { Iterator(subscription: subscription) }

    /// Waits until `node` has ended (its `.sourceEnded` or `.sinkFinished`) and returns that event;
    /// nil when the context closed first. Takes the events before it off this sequence.
    ///
    /// ```swift
    /// let events = context.events        // before the start, so that the end cannot be missed
    /// try camera.start(on: context)
    /// await events.end(of: camera)       // cancel(), a failure, an unplugged device
    /// ```
    @discardableResult
    public func end(of node: AnyObject) async -> RenderEvent? {
        for await event in self {
            switch event {
            case .sourceEnded(let end) where end.node.refers(to: node): return event
            case .sinkFinished(let end) where end.node.refers(to: node): return event
            default: continue
            }
        }
        return nil
    }

    public struct Iterator: AsyncIteratorProtocol {
        let subscription: EventSubscription

        public mutating func next() async -> RenderEvent? { await subscription.buffer.next() }
    }
}

/// Keeps a subscriber's buffer in its hub while the sequence (or an iterator) lives.
final class EventSubscription: Sendable {
    let buffer: EventBuffer
    private let hub: EventHub

    init(hub: EventHub, capacity: Int) {
        self.hub = hub
        buffer = hub.subscribe(capacity: capacity)
    }

    deinit { hub.unsubscribe(buffer) }
}

/// One subscriber's events waiting to be taken, with the policy of `RenderEvents`.
final class EventBuffer: Sendable {
    private struct SubscriptionState {
        var events: [RenderEvent] = []
        var lost = 0
        var finished = false
        var waiter: CheckedContinuation<RenderEvent?, Never>?
    }

    let capacity: Int
    private let state = Locked(SubscriptionState())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds `event`; returns the consumer to wake with it, for the caller to resume after its
    /// own locks are let go.
    func append(_ event: RenderEvent) -> Wake? {
        state.withLock { state -> Wake? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return Wake(waiter: waiter, event: event)
            }
            if case .dropped(let drop) = event, Self.merge(drop, into: &state.events) { return nil }
            if case .statistics(let progress) = event {
                // A sample: it replaces the one of its node not yet taken, and is let go when
                // there is no room (the next one comes a second later).
                if let waiting = state.events.lastIndex(where: { $0.isStatistics(of: progress.node) }) {
                    state.events[waiting] = event
                    return nil
                }
                if state.events.count >= capacity { return nil }
            }
            if state.events.count >= capacity {
                // A counters sample makes room first, uncounted; then the oldest failure or drop.
                if let sample = state.events.firstIndex(where: \.isStatistics) {
                    state.events.remove(at: sample)
                } else if let oldest = state.events.firstIndex(where: { !$0.isEnd }) {
                    state.events.remove(at: oldest)
                    state.lost += 1
                }
            }
            state.events.append(event)
            return nil
        }
    }

    /// No more events: the consumer takes what waits, then the sequence ends.
    func finish() -> Wake? {
        state.withLock { state -> Wake? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter.map { Wake(waiter: $0, event: nil) }
        }
    }

    /// The next event, waiting for one; nil once finished and empty, or when the task is cancelled.
    func next() async -> RenderEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<RenderEvent?, Never>) in
                let ready = state.withLock { state -> RenderEvent?? in
                    if state.lost > 0 {
                        defer { state.lost = 0 }
                        return .lost(state.lost)
                    }
                    if !state.events.isEmpty { return state.events.removeFirst() }
                    if state.finished { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()?.resume()
        }
    }

    /// Adds `drop` to a waiting drop event of the same node; false when there is none.
    private static func merge(_ drop: FrameDrop, into events: inout [RenderEvent]) -> Bool {
        for index in events.indices.reversed() {
            guard case .dropped(var waiting) = events[index], waiting.node == drop.node else { continue }
            waiting.count += drop.count
            waiting.total = drop.total
            events[index] = .dropped(waiting)
            return true
        }
        return false
    }

    /// A consumer to wake with an event (nil: the end).
    struct Wake {
        let waiter: CheckedContinuation<RenderEvent?, Never>
        let event: RenderEvent?

        func resume() { waiter.resume(returning: event) }
    }
}
