/// What happened in a render context's graph, as its event stream (`RenderContext.events`) tells it.
///
/// Every failure of a node is one `.failed` event, in the order found. The ends of sources and
/// sinks, and the frames they dropped, come as events too, so that a program waits on them instead
/// of polling; so do the nodes' own messages (a recording's files, a virtual camera's readers).
/// The stream's last event is `.closed`.
public enum RenderEvent: Sendable, CustomStringConvertible {
    /// A node failed; the other nodes go on. A verb that throws (`run(on:)`, `finish()`) throws the
    /// same failure to its caller: it is one failure, reported once here.
    case failed(NodeFailure)
    /// A node dropped frames (a live source replaced one by a newer one, a late frame, a full
    /// queue). Drops of one node that the consumer has not taken yet are merged into one event.
    case dropped(FrameDrop)
    /// A running source's counters so far, once a second of the context's clock while it
    /// delivers frames. A sample: one not yet taken is replaced by the next of its node, and none
    /// is kept when the consumer's buffer is full (nor counted in `.lost`).
    case statistics(SourceProgress)
    /// A source's stream ended: its end-of-stream went to its targets.
    case sourceEnded(SourceEnd)
    /// A sink ended its output: finished, stopped, cancelled or failed.
    case sinkFinished(SinkEnd)
    /// A node's own news (`NodeMessage`): a recording's fragment or file, a virtual camera's
    /// reader. Read one kind with `message(_:)`.
    case message(NodeReference, any NodeMessage)
    /// This subscriber fell behind and lost this many events (the oldest failures and drops);
    /// ends and `.closed` are never lost.
    case lost(Int)
    /// The context closed: every node has ended. The last event; the stream ends after it.
    case closed

    /// The node the event is about; nil for `.lost` and `.closed`.
    public var node: NodeReference? {
        switch self {
        case .failed(let failure): failure.reference
        case .dropped(let drop): drop.node
        case .statistics(let progress): progress.node
        case .sourceEnded(let end): end.node
        case .sinkFinished(let end): end.node
        case .message(let node, _): node
        case .lost, .closed: nil
        }
    }

    /// The message, when this is a `.message` of type `Kind`: `event.message(RecordingEvent.self)`.
    public func message<Kind: NodeMessage>(_ type: Kind.Type) -> Kind? {
        if case .message(_, let message) = self { message as? Kind } else { nil }
    }

    /// True for a `.statistics` sample.
    var isStatistics: Bool {
        if case .statistics = self { true } else { false }
    }

    /// True for `node`'s `.statistics`.
    func isStatistics(of node: NodeReference) -> Bool {
        if case .statistics(let progress) = self { progress.node == node } else { false }
    }

    /// True for an end: `.sourceEnded`, `.sinkFinished` or `.closed` (never lost).
    var isEnd: Bool {
        switch self {
        case .sourceEnded, .sinkFinished, .closed: true
        case .failed, .dropped, .statistics, .message, .lost: false
        }
    }

    public var description: String {
        switch self {
        case .failed(let failure): "\(failure)"
        case .dropped(let drop): "\(drop)"
        case .statistics(let progress): "\(progress)"
        case .sourceEnded(let end): "\(end)"
        case .sinkFinished(let end): "\(end)"
        case .message(let node, let message): "\(node): \(message)"
        case .lost(let count): "\(count) event\(count == 1 ? "" : "s") lost (the consumer fell behind)"
        case .closed: "the render context closed"
        }
    }
}

/// Frames a node dropped.
public struct FrameDrop: Sendable, CustomStringConvertible {
    public let node: NodeReference
    /// Frames dropped since the last event about this node's drops.
    public internal(set) var count: Int
    /// Frames this node dropped in all (in its current run).
    public internal(set) var total: Int

    package init(node: NodeReference, count: Int, total: Int) {
        (self.node, self.count, self.total) = (node, count, total)
    }

    public var description: String { "\(node) dropped \(count) frame\(count == 1 ? "" : "s") (\(total) in all)" }
}

/// A running source's counters so far (`RenderEvent.statistics`).
public struct SourceProgress: Sendable, CustomStringConvertible {
    public let node: NodeReference
    /// The run's counters now.
    public let statistics: SourceStatistics

    public var description: String { "\(node): \(statistics)" }
}

/// How a source's stream ended.
public struct SourceEnd: Sendable, CustomStringConvertible {
    public let node: NodeReference
    /// The run's counters at its end.
    public let statistics: SourceStatistics
    /// True when a failure ended it (the `.failed` event before this one says which).
    public let failed: Bool

    public var description: String { "\(node) ended\(failed ? " after a failure" : ""): \(statistics)" }
}

/// How a sink's output ended.
public struct SinkEnd: Sendable, CustomStringConvertible {
    /// What became of the output.
    public enum Outcome: Sendable, Equatable {
        /// Completed with what the sink took in (`finish()`, end of stream) or, after `close()`,
        /// with what it had written.
        case finished
        /// A limit (size, duration) ended it; completed.
        case limitReached
        /// Cancelled: the output was removed.
        case cancelled
        /// No frame arrived: nothing was written.
        case empty
        /// A failure ended it (the `.failed` event before this one says which); what was written
        /// before stays.
        case failed
    }

    public let node: NodeReference
    /// The file (or the sink's name when it writes none).
    public let path: String
    public let outcome: Outcome
    /// Frames written to the output.
    public let framesWritten: Int
    /// Frames that reached the sink and are not in its output: dropped for a full queue, or left
    /// in the queue by a failure or a `close()`.
    public let framesDropped: Int

    public var description: String {
        "\(node) (\(path)) \(outcome): \(framesWritten) frame\(framesWritten == 1 ? "" : "s") written, \(framesDropped) dropped"
    }
}
