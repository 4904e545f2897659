
/// The numbered inputs of a node (0 ..< count) and which of them are connected.
public final class InputSlots: Sendable {
    /// How many inputs the node has (1 for most filters, 2 for blends).
    public let count: Int
    private let connected: Locked<[Bool]>

    public init(count: Int = 1) {
        self.count = max(1, count)
        connected = Locked([Bool](repeating: false, count: max(1, count)))
    }

    /// Marks the lowest free input as connected and returns it. When every input is taken, returns
    /// the last one: a second source on a one-input node feeds the same input (e.g. while switching
    /// cameras).
    func claimNextFree() -> Int {
        connected.withLock { slots in
            guard let free = slots.firstIndex(of: false) else { return slots.count - 1 }
            slots[free] = true
            return free
        }
    }

    func claim(_ index: Int) {
        connected.withLock { slots in
            if slots.indices.contains(index) { slots[index] = true }
        }
    }

    func release(_ index: Int) {
        connected.withLock { slots in
            if slots.indices.contains(index) { slots[index] = false }
        }
    }

    /// Whether input `index` has a source.
    public func isConnected(_ index: Int) -> Bool {
        connected.withLock { $0.indices.contains(index) && $0[index] }
    }
}
