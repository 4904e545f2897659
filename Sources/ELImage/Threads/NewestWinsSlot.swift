import Foundation

/// The one-element hand-over between two framework threads where only the newest element matters
/// (a frame for a preview window, an image for a detector): an element put while another waits
/// replaces it, and the replaced one is counted as dropped, so the producer never waits for the
/// consumer. A producer that must lose nothing (a detector on a file) asks to wait instead, until
/// the consumer has finished its element.
///
/// The blocking calls are for framework threads (render, worker, presentation), never Swift tasks.
package final class NewestWinsSlot<Element: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is touched only while `condition` is locked.

    /// What became of a `put`.
    package enum Outcome: Sendable, Equatable {
        /// The element waits in an empty slot.
        case queued
        /// The element took the place of an older one, which was dropped.
        case replacedOlder
        /// The slot is closed: the element was not taken.
        case closed
    }

    private let condition = NSCondition()
    private var waiting: Element?
    private var closed = false
    private var put = 0
    private var finished = 0
    private var droppedCount = 0

    package init() {}

    /// Elements that were replaced or discarded before the consumer took them, and those counted
    /// with `countDropped()`.
    package var dropped: Int { locked { droppedCount } }

    /// True after `close`.
    package var isClosed: Bool { locked { closed } }

    /// Puts `element` in the slot, replacing (and counting) one that waits. With `waitForResult`,
    /// first waits for the slot to be empty, then until the consumer has `finish()`ed the element
    /// (or the slot closed).
    @discardableResult
    package func put(_ element: Element, waitForResult: Bool = false) -> Outcome {
        locked {
            while waitForResult, waiting != nil, !closed { condition.wait() }
            guard !closed else { return .closed }
            let replaced = waiting != nil
            if replaced { droppedCount += 1 } else { put += 1 }
            waiting = element
            let ticket = put
            condition.broadcast()
            while waitForResult, finished < ticket, !closed { condition.wait() }
            return replaced ? .replacedOlder : .queued
        }
    }

    /// Takes the waiting element, waiting for one until `deadline` (nil: as long as it takes). nil
    /// when none came in time, or once the slot is closed and empty (a closed slot still hands out
    /// what waits, unless it was discarded).
    package func take(waitingUntil deadline: Date? = nil) -> Element? {
        locked {
            while waiting == nil, !closed {
                if let deadline {
                    guard condition.wait(until: deadline) else { break }
                } else {
                    condition.wait()
                }
            }
            defer { waiting = nil }
            return waiting
        }
    }

    /// Waits until an element is there, the slot closes or `deadline` passes, without taking it.
    package func wait(until deadline: Date) {
        locked {
            while waiting == nil, !closed, condition.wait(until: deadline) {}
        }
    }

    /// The consumer finished the element it took last: a producer waiting for its result goes on.
    package func finish() {
        locked {
            finished += 1
            condition.broadcast()
        }
    }

    /// Counts an element that never reached the slot (its producer gave it up).
    package func countDropped() {
        locked { droppedCount += 1 }
    }

    /// Takes no more elements; waiting producers and consumers return. With `discarding`, an element
    /// that waits is let go and counted as dropped. Returns true when one was.
    @discardableResult
    package func close(discarding: Bool = false) -> Bool {
        locked {
            closed = true
            condition.broadcast()
            guard discarding, waiting != nil else { return false }
            waiting = nil
            droppedCount += 1
            return true
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
