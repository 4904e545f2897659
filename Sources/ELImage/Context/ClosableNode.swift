/// A node whose work outlives a single call (it starts threads, opens a device or a file): the
/// render context it works in closes it, so that `RenderContext.close()` leaves nothing running.
///
/// Nodes end with one of two verbs:
/// - `close()` stops: a source makes no more frames, a sink drops what waits in its queue and
///   completes its output with what it had written; threads are joined. It never throws.
/// - `finish()` drains (`FinishableNode`): what the node took in is written (a sink) or
///   delivered (a camera), then it ends; it throws the failure that stopped it.
///
/// Either way the end is an event on the context's stream (`.sourceEnded`, `.sinkFinished`) and a
/// failure is a `.failed` event. Nodes register with `RenderContext.register(_:stage:)` when they
/// start such work.
public protocol ClosableNode: AnyObject, Sendable {
    /// Stops the node's work (what waits in its queues is dropped) and joins its threads; returns
    /// when they have ended. Idempotent. Failures are the context's `.failed` events.
    func close() async

    /// Told by `RenderContext.register(_:stage:)` which context the node works in: a node made
    /// before any context (a microphone) reports its failures and messages there from then on.
    /// Does nothing by default.
    func registered(with context: RenderContext)
}

extension ClosableNode {
    public func registered(with context: RenderContext) {}
}

/// A node that can also end by draining. The context's `close()` finishes the sinks among these
/// rather than closing them, so that no frame that reached a sink is lost when a program ends by
/// closing its context.
public protocol FinishableNode: ClosableNode {
    /// What `finish()` returns (frames written, a recording's summary).
    associatedtype Finished: Sendable

    /// Drains: what was taken in is written or delivered, the output is completed and the threads
    /// are joined; returns once they are.
    /// - Throws: the failure that stopped the node (the same one the context's events reported).
    @discardableResult
    func finish() async throws -> Finished
}

/// When a node is closed by its context: sources first (no new frames), then filters, then sinks
/// (which drain what reached them).
public enum CloseStage: Int, Sendable, CaseIterable, Comparable {
    case source
    case filter
    case sink

    public static func < (lhs: CloseStage, rhs: CloseStage) -> Bool { lhs.rawValue < rhs.rawValue }
}
