
/// Where a `RenderContext` stands in its life, and the nodes its `close()` closes.
final class ContextLifecycle: Sendable {
    private enum LifecyclePhase {
        case open
        /// `close()` is stopping sources and draining sinks; GL still works.
        case closing
        /// GL objects are gone; the render thread is ending.
        case glClosed
        case closed
    }

    private struct Registered {
        weak var node: (any ClosableNode)?
        let stage: CloseStage
        var taken: Bool
    }

    private struct LifecycleState {
        var phase = LifecyclePhase.open
        var nodes: [ObjectIdentifier: Registered] = [:]
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(LifecycleState())

    var isClosed: Bool { state.withLock { $0.phase == .closed } }
    var isGLClosed: Bool { state.withLock { $0.phase == .glClosed || $0.phase == .closed } }

    func register(_ node: any ClosableNode, stage: CloseStage) {
        state.withLock { state in
            state.nodes = state.nodes.filter { $0.value.node != nil }
            let key = ObjectIdentifier(node)
            if state.nodes[key] == nil { state.nodes[key] = Registered(node: node, stage: stage, taken: false) }
        }
    }

    /// True for the one caller that starts the close; the others wait for it.
    func beginClose() -> Bool {
        state.withLock { state in
            guard state.phase == .open else { return false }
            state.phase = .closing
            return true
        }
    }

    /// The nodes of `stage` that are alive and not closed yet, marked as taken.
    func takeUnclosed(_ stage: CloseStage) -> [any ClosableNode] {
        state.withLock { state in
            var taken: [any ClosableNode] = []
            for (key, entry) in state.nodes where entry.stage == stage && !entry.taken {
                if let node = entry.node { taken.append(node) }
                state.nodes[key]?.taken = true
            }
            return taken
        }
    }

    func markGLClosed() {
        state.withLock { $0.phase = .glClosed }
    }

    func finishClose() {
        let waiters = state.withLock { state in
            state.phase = .closed
            state.nodes = [:]
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { state -> Bool in
                if state.phase == .closed { return true }
                state.waiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }
}
