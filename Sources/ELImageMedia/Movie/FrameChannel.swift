import Dispatch
import Synchronization

/// A bounded hand-over from a producer thread that may block (a decoder) to an async consumer
/// (the task that feeds the graph).
///
/// The producer's `send` waits while `capacity` elements are in flight, so a slow graph slows
/// the decoder down instead of filling memory. `close()` (from the consumer or anyone) makes
/// `send` return false at once, so the producer can stop; the consumer then reads on until the
/// producer calls `finish()`, which guarantees that the producer is done when the loop ends.
final class FrameChannel<Element: Sendable>: Sendable {
    /// The elements, for the consumer's `for await` loop. Call `didTake()` for each one taken.
    let elements: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation
    private let freeSlots: DispatchSemaphore
    private let closed = Atomic<Bool>(false)

    init(capacity: Int) {
        (elements, continuation) = AsyncStream.makeStream(of: Element.self)
        freeSlots = DispatchSemaphore(value: max(1, capacity))
    }

    /// Hands `element` to the consumer, waiting for room; false when the channel was closed.
    func send(_ element: Element) -> Bool {
        guard !isClosed else { return false }
        freeSlots.wait()
        guard !isClosed else {
            freeSlots.signal()  // pass the wake-up on, in case another send waits
            return false
        }
        continuation.yield(element)
        return true
    }

    /// Says that the consumer has taken an element off the stream: the producer may send one more.
    func didTake() { freeSlots.signal() }

    /// Stops the producer: `send` returns false from now on.
    func close() {
        if closed.exchange(true, ordering: .acquiringAndReleasing) == false { freeSlots.signal() }
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Ends the stream; called by the producer when it has stopped.
    func finish() { continuation.finish() }
}
