/// A node that produces frames (a source or a filter) and pushes each one to its targets.
///
/// A node conforms by holding its targets: `public let outputs = OutputTargets()`. Targets can be
/// added and removed from any thread while frames flow (see `OutputTargets`).
public protocol ImageOutput: AnyObject, Sendable {
    /// The node's targets and the fan-out to them.
    var outputs: OutputTargets { get }
}

extension ImageOutput {
    /// A target and the input index it is connected on.
    public typealias Connection = OutputTargets.Connection

    /// The current targets.
    public var targets: [Connection] { outputs.all }

    /// Connects `target`, on input `index` or on its next free input.
    public func addTarget(_ target: any ImageInput, atIndex index: Int? = nil) {
        outputs.add(target, atIndex: index)
    }

    /// Disconnects `target` (every input it was connected on).
    public func removeTarget(_ target: any ImageInput) {
        outputs.remove(target)
    }

    /// Disconnects every target.
    public func removeAllTargets() {
        outputs.removeAll()
    }

    /// Sends `frame` to every target. Failures are reported, never thrown.
    public func deliver(_ frame: TextureFrame, in context: isolated RenderContext) {
        outputs.deliver(frame, in: context)
    }

    /// Sends `picture` (pixels, or a recipe not drawn yet) to every target. Failures are reported,
    /// never thrown.
    public func deliver(_ picture: Picture, in context: isolated RenderContext) {
        outputs.deliver(picture, from: self, in: context)
    }

    /// Tells every target that no more frames will come from this node.
    public func deliverEndOfStream(in context: isolated RenderContext) {
        outputs.deliverEndOfStream(in: context)
    }
}

infix operator --> : AdditionPrecedence

/// Connects `source` to `target` on the target's next free input and returns `target`, so that
/// chains read like the graph: `camera --> beauty --> encoder`.
@discardableResult
public func --> <Target: ImageOutput & ImageInput>(source: any ImageOutput, target: Target) -> Target {
    source.addTarget(target)
    return target
}

/// Connects `source` to a sink (a node with no outputs).
public func --> (source: any ImageOutput, target: any ImageInput) {
    source.addTarget(target)
}
