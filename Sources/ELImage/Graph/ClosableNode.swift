/// A node whose work outlives a single call (it starts threads, opens a device or a file): the
/// render context it works in closes it, so that `RenderContext.close()` leaves nothing running.
///
/// Nodes register with `RenderContext.register(_:stage:)` when they start such work.
public protocol ClosableNode: AnyObject, Sendable {
    /// Stops (a source) or finishes (a sink) the node's work and joins its threads; returns when
    /// they have ended. Idempotent. Failures go to the context's error handler.
    func close() async
}

/// When a node is closed by its context: sources first (no new frames), then filters, then sinks
/// (which drain what reached them).
public enum CloseStage: Int, Sendable, CaseIterable, Comparable {
    case source
    case filter
    case sink

    public static func < (lhs: CloseStage, rhs: CloseStage) -> Bool { lhs.rawValue < rhs.rawValue }
}
