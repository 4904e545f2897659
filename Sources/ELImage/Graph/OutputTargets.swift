/// The targets of a node that produces frames, and the fan-out to them: the graph membership a
/// source or a filter holds as a component (`ImageOutput.outputs`).
///
/// Targets can be added and removed from any thread while frames flow: each frame goes to the
/// targets connected when it is delivered. A target that throws is reported through the context's
/// error handler and the other targets still get the frame.
public final class OutputTargets: Sendable {
    /// A target and the input index it is connected on.
    public struct Connection: Sendable {
        public let target: any ImageInput
        public let index: Int
    }

    private let connections = Locked<[Connection]>([])

    public init() {}

    /// The current targets.
    public var all: [Connection] { connections.withLock { $0 } }

    /// Connects `target`, on input `index` or on its next free input.
    public func add(_ target: any ImageInput, atIndex index: Int? = nil) {
        let slot: Int
        if let index {
            target.inputSlots.claim(index)
            slot = index
        } else {
            slot = target.inputSlots.claimNextFree()
        }
        connections.withLock { $0.append(Connection(target: target, index: slot)) }
    }

    /// Disconnects `target` (every input it was connected on).
    public func remove(_ target: any ImageInput) {
        let removed = connections.withLock { list in
            let gone = list.filter { $0.target === target }
            list.removeAll { $0.target === target }
            return gone
        }
        removed.forEach { $0.target.inputSlots.release($0.index) }
    }

    /// Disconnects every target.
    public func removeAll() {
        let removed = connections.withLock { list in
            defer { list.removeAll() }
            return list
        }
        removed.forEach { $0.target.inputSlots.release($0.index) }
    }

    /// Sends `frame` to every target. Failures are reported, never thrown.
    public func deliver(_ frame: TextureFrame, in context: isolated RenderContext) {
        for connection in all {
            do {
                try connection.target.receive(frame, at: connection.index, in: context)
            } catch {
                context.report(error, from: connection.target)
            }
        }
    }

    /// Tells every target that no more frames will come.
    public func deliverEndOfStream(in context: isolated RenderContext) {
        for connection in all {
            connection.target.endOfStream(at: connection.index, in: context)
        }
    }
}
