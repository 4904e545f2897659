import Synchronization

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

    private let wiring = Locked(Wiring())
    /// Counts the changes of these connections: a plan walked at one version is good until the next.
    private let version = Atomic<UInt64>(0)
    /// The plan of the graph below, compiled when a picture comes after a change of wiring.
    let plans = PlanCache()

    /// The connections, and how many of them read pixels (all but observers, `FrameObserver`).
    private struct Wiring {
        var connections: [Connection] = []
        var readers = 0

        init(_ connections: [Connection] = []) {
            self.connections = connections
            readers = connections.count { !($0.target is any FrameObserver) }
        }
    }

    public init() {}

    /// The current targets.
    public var all: [Connection] { wiring.withLock { $0.connections } }

    /// The current targets and the version of the connections they are.
    var versioned: (connections: [Connection], version: UInt64) {
        let version = version.load(ordering: .acquiring)
        return (all, version)
    }

    /// Whether the connections are still those of `version`.
    func isUnchanged(since version: UInt64) -> Bool {
        self.version.load(ordering: .acquiring) == version
    }

    /// Connects `target`, on input `index` or on its next free input.
    public func add(_ target: any ImageInput, atIndex index: Int? = nil) {
        let slot: Int
        if let index {
            target.inputSlots.claim(index)
            slot = index
        } else {
            slot = target.inputSlots.claimNextFree()
        }
        wiring.withLock { $0 = Wiring($0.connections + [Connection(target: target, index: slot)]) }
        version.add(1, ordering: .releasing)
    }

    /// Disconnects `target` (every input it was connected on).
    public func remove(_ target: any ImageInput) {
        let removed = wiring.withLock { wiring in
            let gone = wiring.connections.filter { $0.target === target }
            wiring = Wiring(wiring.connections.filter { $0.target !== target })
            return gone
        }
        removed.forEach { $0.target.inputSlots.release($0.index) }
        plans.forget()
        version.add(1, ordering: .releasing)
    }

    /// Disconnects every target.
    public func removeAll() {
        let removed = wiring.withLock { wiring in
            defer { wiring = Wiring() }
            return wiring.connections
        }
        removed.forEach { $0.target.inputSlots.release($0.index) }
        plans.forget()
        version.add(1, ordering: .releasing)
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

    /// Sends `picture` to every target: a recipe as it is to one target that reads pixels (besides
    /// observers), drawn once first for several (each would draw it otherwise). Failures are
    /// reported, never thrown; a recipe that fails to draw is reported as the failure of the node
    /// that delivers it.
    public func deliver(_ picture: Picture, from node: AnyObject, in context: isolated RenderContext) {
        let (connections, readers) = wiring.withLock { ($0.connections, $0.readers) }
        var picture = picture
        if readers > 1, !picture.isDrawn {
            do {
                picture = Picture(try picture.pixels(in: context))
            } catch {
                context.report(error, from: node)
                return
            }
        }
        for connection in connections {
            do {
                try connection.target.receive(picture, at: connection.index, in: context)
            } catch {
                context.report(error, from: connection.target)
            }
        }
    }

    /// Tells every target that no more frames will come.
    public func deliverEndOfStream(in context: isolated RenderContext) {
        plans.endOfStream()
        for connection in all {
            connection.target.endOfStream(at: connection.index, in: context)
        }
    }
}
