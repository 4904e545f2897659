import Dispatch

/// A bounded hand-over from one worker thread to one async consumer: `send` blocks the worker
/// (never a Swift cooperative thread) while `capacity` elements wait for the consumer, so a slow
/// consumer slows the worker, and through the worker's queue a file source, without losing
/// anything. When the consumer stops listening (its task is cancelled, or it leaves its loop and
/// the iterator goes) or the channel is cancelled, `send` stops waiting and returns false.
final class FrameChannel<Element: Sendable>: Sendable {
    private let stream: AsyncThrowingStream<Element, any Error>
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
    /// One permit per element the consumer may still have waiting.
    private let room: DispatchSemaphore
    private let listening = Locked(true)

    init(capacity: Int) {
        (stream, continuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
        room = DispatchSemaphore(value: max(1, capacity))
        continuation.onTermination = { [listening, room] _ in
            listening.withLock { $0 = false }
            room.signal()  // the worker may be waiting for room
        }
    }

    /// The consumer's side; iterate it once.
    var elements: Elements { Elements(channel: self) }

    /// Hands `element` over, first waiting for room; false when nobody listens any more.
    func send(_ element: Element) -> Bool {
        room.wait()
        guard listening.withLock({ $0 }) else {
            room.signal()  // keep the next send from waiting
            return false
        }
        continuation.yield(element)
        return true
    }

    /// Ends the sequence after the elements sent, with `error` when there is one.
    func finish(throwing error: (any Error)? = nil) {
        continuation.finish(throwing: error)
    }

    /// Stops listening: a waiting `send` returns false, and so does every later one.
    func cancel() {
        stopListening()
        continuation.finish()
    }

    private func stopListening() {
        listening.withLock { $0 = false }
        room.signal()  // the worker may be waiting for room
    }

    /// The elements in the order they were sent; taking one makes room for the next.
    struct Elements: AsyncSequence, Sendable {
        let channel: FrameChannel

        func makeAsyncIterator() -> ElementIterator {
            ElementIterator(base: channel.stream.makeAsyncIterator(), listener: Listener(channel))
        }

        struct ElementIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Element, any Error>.AsyncIterator
            let listener: Listener

            mutating func next() async throws -> Element? {
                let element = try await base.next()
                if element != nil { listener.channel.room.signal() }
                return element
            }
        }
    }

    /// The consumer's presence: when its iterator goes (the loop was left), nobody listens.
    final class Listener: Sendable {
        let channel: FrameChannel
        init(_ channel: FrameChannel) { self.channel = channel }
        deinit { channel.stopListening() }
    }
}
