import Foundation

/// The framework's one bounded hand-over between two threads (a producer and one consumer), in
/// order: a source's producer to its delivery thread, the render thread to a readback worker.
///
/// Items count against `capacity`; when it is full, each `push` says what happens (`WhenFull`):
/// wait for room, refuse the new item, or replace the oldest waiting item. Control messages
/// (`post`, `close(with:)`) never wait and never count, so a stop gets through a full queue.
/// `cancel()` refuses items from then on (and wakes a waiting producer); `finish()` lets the
/// consumer's `pop()` return nil once the queue is empty; `close()` does both. A producer that
/// must see its item handled (a detector on a file) pushes with `waitUntilHandled`; the consumer
/// says `markHandled()` when it is done with what it popped.
///
/// The blocking calls are for framework threads, never Swift tasks. With capacity 1 and
/// `.replaceOldest` it is a newest-wins mailbox (a preview window, a detector).
package final class HandoffQueue<Element: Sendable>: Sendable {
    /// What a `push` does when `capacity` items already wait.
    package enum WhenFull: Sendable, Equatable {
        /// Waits until the consumer takes one (or the queue is cancelled): nothing is lost.
        case wait
        /// Refuses the new item at once (counted in `QueueStatistics.rejected`).
        case refuse
        /// Drops the oldest waiting item for the new one (counted in `QueueStatistics.replaced`).
        case replaceOldest
    }

    /// What became of a pushed item: it is `queued`, or it `replacedOlder` (it got in in place of
    /// the oldest waiting item, which is dropped), or it was `refused` (full, and the policy was to
    /// refuse), or the queue was `closed` (cancelled or closed) before it got in.
    package enum PushOutcome: Sendable, Equatable {
        case queued, replacedOlder, refused, closed
    }

    /// Items that got in (`accepted`), were refused because the queue was full (`rejected`) or
    /// were dropped while waiting for a newer one (`replaced`), and the most items that waited at
    /// once (`highWaterMark`); counted under the queue's lock, so they agree with what the
    /// consumer saw.
    package struct QueueStatistics: Sendable, Equatable {
        package var accepted = 0, rejected = 0, replaced = 0, highWaterMark = 0
    }

    private struct QueueEntry {
        let element: Element
        let counted: Bool
    }

    /// What the producer and the consumer share, under the queue's lock.
    private struct QueueState {
        /// The items and control messages waiting, oldest first. A popped entry leaves the array
        /// at once: kept, it would hold its element (a frame's buffer) alive, and a consumer that
        /// reuses its buffers would then copy them.
        var entries: [QueueEntry] = []
        var waitingItems = 0
        var cancelled = false
        var finished = false
        var busy = false
        /// Counted items popped, and how many of those the consumer said it handled.
        var popped = 0
        var handled = 0
        var counts = QueueStatistics()
    }

    /// The most counted items that wait at once (at least 1).
    package let capacity: Int
    private let state = Locked(QueueState())

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// True once `cancel()`, `close()` or `close(with:)` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// True when nothing waits and the consumer is not handling an item (it is in `pop()`, or has
    /// not started).
    package var isIdle: Bool { state.withLock { $0.entries.isEmpty && !$0.busy } }

    package var statistics: QueueStatistics { state.withLock { $0.counts } }

    /// Appends a counted item, doing `whenFull` when `capacity` items wait. With
    /// `waitUntilHandled`, then waits until the consumer `markHandled()` it (or the queue is
    /// cancelled).
    @discardableResult
    package func push(_ element: Element, whenFull: WhenFull, waitUntilHandled: Bool = false) -> PushOutcome {
        state.withCondition { q in
            var outcome = PushOutcome.queued
            room: while !q.cancelled, q.waitingItems >= capacity {
                switch whenFull {
                case .wait:
                    q.wait()
                    continue
                case .refuse:
                    q.counts.rejected += 1
                    return .refused
                case .replaceOldest:
                    guard let oldest = q.entries.firstIndex(where: \.counted) else { break room }
                    q.entries.remove(at: oldest)
                    q.waitingItems -= 1
                    q.counts.replaced += 1
                    outcome = .replacedOlder
                }
            }
            guard !q.cancelled else { return .closed }
            q.entries.append(QueueEntry(element: element, counted: true))
            q.waitingItems += 1
            q.counts.accepted += 1
            q.counts.highWaterMark = max(q.counts.highWaterMark, q.waitingItems)
            q.broadcast()
            // Items are popped in order and a replaced one never is: this one is popped as number
            // `accepted - replaced`.
            let ticket = q.counts.accepted - q.counts.replaced
            while waitUntilHandled, q.handled < ticket, !q.cancelled { q.wait() }
            return outcome
        }
    }

    /// Appends a control message: never waits, never counts, taken even after `cancel()`.
    package func post(_ control: Element) {
        state.withCondition { q in
            q.entries.append(QueueEntry(element: control, counted: false))
            q.broadcast()
        }
    }

    /// Closes the queue and appends `last`: every item pushed before it is ahead of it, and none
    /// after it. False (nothing appended) when the queue was already cancelled or closed.
    @discardableResult
    package func close(with last: Element) -> Bool {
        state.withCondition { q in
            guard !q.cancelled else { return false }
            q.entries.append(QueueEntry(element: last, counted: false))
            (q.cancelled, q.finished) = (true, true)
            q.broadcast()
            return true
        }
    }

    /// Refuses items from now on; a producer waiting for room returns `.closed`. Items already
    /// waiting are still popped, and control messages still get in.
    package func cancel() {
        state.withCondition { q in
            q.cancelled = true
            q.broadcast()
        }
    }

    /// No more items will come: `pop()` returns nil once the queue is empty.
    package func finish() {
        state.withCondition { q in
            q.finished = true
            q.broadcast()
        }
    }

    /// `cancel()` and `finish()` at once. With `discarding`, the items still waiting are let go
    /// (returned, so their owner can release and count them) and `pop()` returns nil at once.
    @discardableResult
    package func close(discarding: Bool = false) -> [Element] {
        state.withCondition { q in
            (q.cancelled, q.finished) = (true, true)
            q.broadcast()
            guard discarding else { return [] }
            let rest = q.entries.map(\.element)
            q.entries.removeAll()
            q.waitingItems = 0
            return rest
        }
    }

    /// Lets go of the counted items still waiting (returned, so their owner can release them);
    /// control messages stay, so a `close(with:)` message still ends the consumer's work.
    @discardableResult
    package func discardWaiting() -> [Element] {
        state.withCondition { q in
            let rest = q.entries.filter(\.counted).map(\.element)
            q.entries.removeAll { $0.counted }
            q.waitingItems = 0
            q.broadcast()
            return rest
        }
    }

    /// The oldest item, waiting for one until `deadline` (nil: as long as it takes); nil when none
    /// came in time, or once the queue is finished and empty. The consumer counts as busy
    /// (`isIdle` false) until its next `pop()`.
    package func pop(waitingUntil deadline: Date? = nil) -> Element? {
        state.withCondition { q in
            q.busy = false
            while q.entries.isEmpty {
                if q.finished { return nil }
                if let deadline {
                    if !q.wait(until: deadline), q.entries.isEmpty { return nil }
                } else {
                    q.wait()
                }
            }
            // At most `capacity` items and a few control messages wait: shifting them is cheap.
            let entry = q.entries.removeFirst()
            if entry.counted { (q.waitingItems, q.popped) = (q.waitingItems - 1, q.popped + 1) }
            q.busy = true
            q.broadcast()
            return entry.element
        }
    }

    /// Waits until an item is there, the queue is finished or `deadline` passes, without taking
    /// anything.
    package func wait(until deadline: Date) {
        state.withCondition { q in
            while q.entries.isEmpty, !q.finished, q.wait(until: deadline) {}
        }
    }

    /// The consumer is done with every item it popped: producers waiting for them go on.
    package func markHandled() {
        state.withCondition { q in
            q.handled = q.popped
            q.broadcast()
        }
    }

    /// Waits until `deadline` on `clock` (pacing), returning early when the queue is cancelled;
    /// false when it was.
    package func sleep(until deadline: ContinuousClock.Instant, on clock: any BlockingClock = ContinuousClock()) -> Bool {
        state.withCondition { q in
            while !q.cancelled, clock.now < deadline {
                q.wait(on: clock, until: deadline)
            }
            return !q.cancelled
        }
    }
}
