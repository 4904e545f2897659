import Foundation

/// The frames a `ReadbackSink` has packed on the render thread and not yet read back there
/// (`ReadbackPlacement.renderThread`): held, oldest first, until they can be read without waiting,
/// so that the render thread goes on with the next frames while the renderer's threads draw.
///
/// A frame is read once its fence has signalled and `newerFrames` frames were packed after it: on
/// llvmpipe, reading a texture that one of the context's last few batches of draws wrote waits
/// for every draw queued since. The oldest frames beyond `limit` are read at once (waiting). While
/// frames are held, a poll every few milliseconds reads them all when the renderer has drawn the
/// newest, nothing is queued and nothing waits: the frames of a source that paused or
/// ended are not kept. A finish reads them all. Only the render thread takes frames (it checks
/// their fences); any thread may let them go.
final class HeldReadbacks: Sendable {
    /// A packed frame waiting for its readback.
    struct Frame: Sendable {
        let pending: PendingReadback
        let time: Int64
        let number: Int
    }

    private struct HeldState {
        var frames: [Frame] = []
        var lettingGo = false
        var pollScheduled = false
    }

    /// The most frames held: beyond it the oldest is read at once.
    let limit: Int
    /// Frames packed after a frame before it is read.
    static let newerFrames = 2
    private let state = Locked(HeldState())
    /// Held while the render thread reads taken frames back and queues them, so that the end of a
    /// run can wait until those frames are queued or counted as let go.
    private let delivery = NSLock()

    init(limit: Int) {
        self.limit = max(Self.newerFrames + 1, limit)
    }

    /// Holds `frame`; false (and `frame` is let go) after `letGoAll()`.
    func hold(_ frame: Frame) -> Bool {
        let letGo = state.withLock { state -> Frame? in
            guard !state.lettingGo else { return frame }
            state.frames.append(frame)
            return nil
        }
        return letGo == nil  // a frame let go releases its planes here, outside the lock
    }

    /// The frames to read back now, oldest first, no longer held: those drawn with `newerFrames`
    /// packed after them, the oldest beyond `limit`, or every one with `all`. On the render thread.
    func takeReady(all: Bool) -> [Frame] {
        state.withLock { state in
            var count = 0
            while count < state.frames.count {
                let newer = state.frames.count - count - 1
                guard all || newer >= limit
                        || (newer >= Self.newerFrames && state.frames[count].pending.fence.isSignalled) else { break }
                count += 1
            }
            defer { state.frames.removeFirst(count) }
            return Array(state.frames.prefix(count))
        }
    }

    /// Every held frame when the renderer has drawn the newest (nothing then waits for queued
    /// draws), else none. On the render thread.
    func takeAllIfDrawn() -> [Frame] {
        state.withLock { state in
            guard let newest = state.frames.last, newest.pending.fence.isSignalled else { return [] }
            defer { state.frames = [] }
            return state.frames
        }
    }

    var isEmpty: Bool { state.withLock { $0.frames.isEmpty } }

    /// Lets every held frame go unread, and holds none from now on (a stop, cancel or failure).
    /// Returns how many were let go.
    func letGoAll() -> Int {
        let frames = state.withLock { state -> [Frame] in
            state.lettingGo = true
            defer { state.frames = [] }
            return state.frames
        }
        return frames.count  // their planes are released here, outside the lock
    }

    /// Runs `body`, which takes frames and queues them, as one delivery (on the render thread).
    func delivering(_ body: () -> Void) {
        delivery.lock()
        defer { delivery.unlock() }
        body()
    }

    /// Waits until no delivery is in progress. Call after the queue was closed, so that a delivery
    /// waiting for room returns; never from inside `delivering`.
    func waitForDeliveries() {
        delivery.lock()
        delivery.unlock()
    }

    /// Marks a poll scheduled: false when one already is.
    func beginPoll() -> Bool {
        state.withLock { state in
            defer { state.pollScheduled = true }
            return !state.pollScheduled
        }
    }

    /// The scheduled poll runs (or will not).
    func endPoll() { state.withLock { $0.pollScheduled = false } }
}
