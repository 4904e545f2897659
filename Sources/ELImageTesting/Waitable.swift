import ELImage

/// A value that tests wait on: every change wakes the tasks whose condition now holds, so a test
/// waits for the event itself (a frame came, a thread is held, a run ended) instead of sleeping and
/// looking again.
///
/// ```swift
/// let frames = Waitable(0)
/// // on any thread:  frames.update { $0 += 1 }
/// #expect(await frames.wait { $0 >= 3 })
/// ```
///
/// `timeout` is a safety net for a test whose event never comes (it then fails instead of hanging):
/// real time, generous for a loaded machine, and never reached by a test that passes.
public final class Waitable<Value: Sendable>: Sendable {
    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
        var deadline: Task<Void, Never>?
    }

    private struct Storage {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let storage: Locked<Storage>

    /// The default safety net of `wait`: a minute.
    public static var defaultTimeout: Duration { .seconds(60) }

    public init(_ value: Value) { storage = Locked(Storage(value: value)) }

    /// The value now.
    public var value: Value { storage.withLock { $0.value } }

    /// Changes the value and wakes the waiters whose condition holds afterwards. Safe from any
    /// thread (the render thread, a framework thread, a task).
    public func update(_ change: (inout Value) -> Void) {
        let ready = storage.withLock { storage -> [Waiter] in
            change(&storage.value)
            let value = storage.value
            var ready: [Waiter] = []
            for (id, waiter) in storage.waiters where waiter.condition(value) {
                ready.append(waiter)
                storage.waiters[id] = nil
            }
            return ready
        }
        for waiter in ready {
            waiter.deadline?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    /// Returns once `condition` holds for the value: true, or false when `timeout` passed first.
    @discardableResult
    public func wait(timeout: Duration = defaultTimeout, until condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        if condition(value) { return true }
        return await withCheckedContinuation { continuation in
            let id = storage.withLock { storage -> UInt64? in
                if condition(storage.value) { return nil }
                storage.nextID += 1
                storage.waiters[storage.nextID] = Waiter(condition: condition, continuation: continuation)
                return storage.nextID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            let deadline = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self.expire(id)
            }
            let armed = storage.withLock { storage -> Bool in
                guard storage.waiters[id] != nil else { return false }
                storage.waiters[id]?.deadline = deadline
                return true
            }
            if !armed { deadline.cancel() }  // it already woke
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = storage.withLock { storage -> Waiter? in
            defer { storage.waiters[id] = nil }
            return storage.waiters[id]
        }
        waiter?.continuation.resume(returning: false)
    }
}
