
/// The framework threads started on behalf of one owner (a `RenderContext` and the nodes working
/// in it). Threads join the group when they start and leave it when joined; the owner's close
/// joins whatever is left, so after it no thread of the group is alive.
package final class ThreadGroup: Sendable {
    private let threads = Locked<[ObjectIdentifier: JoinableThread]>([:])

    package init() {}

    /// The names of the threads started and not yet joined.
    package var names: [String] { threads.withLock { $0.values.map(\.name).sorted() } }

    /// The number of threads started and not yet joined.
    package var count: Int { threads.withLock { $0.count } }

    func add(_ thread: JoinableThread) {
        threads.withLock { $0[ObjectIdentifier(thread)] = thread }
    }

    func remove(_ thread: JoinableThread) {
        _ = threads.withLock { $0.removeValue(forKey: ObjectIdentifier(thread)) }
    }

    /// Joins every thread of the group, including threads started while it waits.
    package func joinAll() async {
        while let next = threads.withLock({ $0.values.first }) {
            await next.join()
            remove(next)
        }
    }

    /// Forgets every thread without waiting (they are detached as they go): the safety net of an
    /// owner that was never closed.
    package func abandonAll() {
        _ = threads.withLock { threads in
            defer { threads.removeAll() }
            return threads
        }
    }
}
