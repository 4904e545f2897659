import Foundation

/// Where a render context's events go: to every subscriber's buffer (`RenderEvents`), in the same
/// order for all, and, for failures, to the error handler of `RenderContext.setErrorHandler`.
/// Without either, failures are written to standard error, so that none goes unsaid.
///
/// Publishing never waits for a consumer: it appends under a lock and wakes a waiting one.
final class EventHub: Sendable {
    private struct HubState {
        var subscribers: [ObjectIdentifier: EventBuffer] = [:]
        var errorHandler: (@Sendable (NodeFailure) -> Void)?
        var closed = false
    }

    private let state = Locked(HubState())

    /// A new subscriber's buffer; one made after `close()` is finished at once.
    func subscribe(capacity: Int) -> EventBuffer {
        let buffer = EventBuffer(capacity: capacity)
        let open = state.withLock { state -> Bool in
            if !state.closed { state.subscribers[ObjectIdentifier(buffer)] = buffer }
            return !state.closed
        }
        if !open { buffer.finish()?.resume() }
        return buffer
    }

    func unsubscribe(_ buffer: EventBuffer) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: ObjectIdentifier(buffer)) }
    }

    func setErrorHandler(_ handler: (@Sendable (NodeFailure) -> Void)?) {
        state.withLock { $0.errorHandler = handler }
    }

    /// Hands `event` to every subscriber and, for a failure, to the error handler (on the calling
    /// thread). A source's failure that its `run(on:)` throws is not handed to the error handler,
    /// which heard only the failures nobody throws before the event stream existed.
    func publish(_ event: RenderEvent) {
        let (wakes, handler, heard) = state.withLock { state in
            (state.subscribers.values.compactMap { $0.append(event) }, state.errorHandler, !state.subscribers.isEmpty)
        }
        wakes.forEach { $0.resume() }
        guard case .failed(let failure) = event, !failure.isThrownByRun else { return }
        if let handler {
            handler(failure)
        } else if !heard {
            FileHandle.standardError.write(Data("ELImage: \(failure)\n".utf8))
        }
    }

    /// Publishes `.closed`, then ends every subscriber's sequence after what it holds.
    func close() {
        let wakes = state.withLock { state -> [EventBuffer.Wake] in
            guard !state.closed else { return [] }
            state.closed = true
            let buffers = Array(state.subscribers.values)
            state.subscribers = [:]
            return buffers.compactMap { $0.append(.closed) } + buffers.compactMap { $0.finish() }
        }
        wakes.forEach { $0.resume() }
    }
}
