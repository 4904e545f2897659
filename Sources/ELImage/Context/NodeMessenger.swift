import Foundation

/// How a node tells its messages (`NodeMessage`) to the render context it works in, from any of
/// its threads, without its workers holding the node: it meets the context when the node's first
/// frame comes (`meet(_:as:)`, on the render thread) and publishes there as `RenderEvent.message`
/// naming the node. A message before the node has met a context has no stream to go to and is
/// not kept.
///
/// ```swift
/// struct Seen: NodeMessage { let timestamp: MediaTime; var description: String { "saw \(timestamp)" } }
///
/// final class Watcher: ImageInput, Sendable {
///     let inputSlots = InputSlots(count: 1)
///     private let messenger = NodeMessenger()
///     func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
///         messenger.meet(context, as: self)
///         messenger.publish(Seen(timestamp: frame.timestamp))
///     }
///     func endOfStream(at index: Int, in context: isolated RenderContext) {}
/// }
/// ```
public final class NodeMessenger: Sendable {
    private struct Met: Sendable {
        weak var context: RenderContext?
        var node: NodeReference?
    }

    private let met = Locked(Met())

    public init() {}

    /// The context `node` works in now: its messages go there from now on.
    public func meet(_ context: RenderContext, as node: AnyObject) {
        met.withLock { met in
            guard met.context !== context || met.node == nil else { return }
            met.context = context
            met.node = NodeReference(node)
        }
    }

    /// Publishes `message` on the context's event stream (on the calling thread, never waiting).
    public func publish(_ message: any NodeMessage) {
        let (context, node) = met.withLock { ($0.context, $0.node) }
        if let context, let node { context.publish(.message(node, message)) }
    }

    /// Reports a failure of the node that does not stop it (it goes on): a `.failed` event on the
    /// context's stream; written to standard error when the node has met no context, so that
    /// none goes unsaid.
    public func report(_ error: any Error) {
        let (context, node) = met.withLock { ($0.context, $0.node) }
        if let context, let node {
            context.report(error, from: node)
        } else {
            FileHandle.standardError.write(Data("ELImage: \(node?.name ?? "a node") failed: \(error)\n".utf8))
        }
    }
}
