import Foundation

/// A bounded queue from the render thread (producer) to one worker thread (consumer).
///
/// Frames count against `capacity`; control messages (finish, cancel) never wait and never
/// count, so a stop gets through even when the queue is full. `close(with:)` atomically stops
/// taking frames and appends a last message: every frame pushed before it is ahead of it, and
/// none after it.
final class EncoderQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is guarded by `condition`.

    /// What became of a pushed frame.
    enum PushResult: Equatable {
        case queued
        /// The queue was full and the policy was to drop.
        case dropped
        /// The queue was closed (the recording stopped or failed) before the frame got in.
        case closed
    }

    private struct Entry {
        let element: Element
        let isFrame: Bool
    }

    let capacity: Int
    private let condition = NSCondition()
    private var entries: [Entry] = []
    private var head = 0
    private var frameCount = 0
    private var closed = false
    private var highWaterMark = 0
    private var acceptedFrames = 0
    private var rejectedFrames = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Appends a frame. With `wait`, blocks while the queue is full (until there is room or it is
    /// closed); otherwise returns `.dropped` at once when full.
    func push(frame element: Element, wait: Bool) -> PushResult {
        condition.lock()
        defer { condition.unlock() }
        while !closed && frameCount >= capacity {
            guard wait else {
                rejectedFrames += 1
                return .dropped
            }
            condition.wait()
        }
        if closed { return .closed }
        entries.append(Entry(element: element, isFrame: true))
        frameCount += 1
        acceptedFrames += 1
        highWaterMark = max(highWaterMark, frameCount)
        condition.broadcast()
        return .queued
    }

    /// Closes the queue to frames and appends `last`; false (nothing appended) when it was
    /// already closed.
    @discardableResult
    func close(with last: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        closed = true
        entries.append(Entry(element: last, isFrame: false))
        condition.broadcast()
        return true
    }

    /// Closes the queue to frames, appending nothing (the consumer ends on its own).
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Frames that got in, frames dropped because the queue was full, and the most frames that
    /// waited at once: counted under the queue's lock, so they agree with what the consumer saw.
    var counts: (accepted: Int, rejected: Int, highWater: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (acceptedFrames, rejectedFrames, highWaterMark)
    }

    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// The next element, waiting for one; nil once the queue is closed and empty.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == entries.count {
            if closed { return nil }
            condition.wait()
        }
        let entry = entries[head]
        head += 1
        if entry.isFrame { frameCount -= 1 }
        if head > 64 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return entry.element
    }

    /// Takes every element left (after a failure, to release their textures and count them).
    func drain() -> [Element] {
        condition.lock()
        defer { condition.unlock() }
        let rest = entries[head...].map(\.element)
        entries.removeAll()
        head = 0
        frameCount = 0
        condition.broadcast()
        return rest
    }
}
