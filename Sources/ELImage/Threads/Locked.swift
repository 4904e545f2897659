import Foundation

/// A value that threads share, reached only while holding its lock: the framework's one lock type,
/// and its one place where shared state is declared safe by hand.
///
/// `withLock` has the shape of the standard library's `Mutex` (the body gets the value `inout`).
/// `withCondition` is for threads that also wait for each other: its body gets a `Held` view of
/// the value, through which it reads and writes the value and may `wait` for another thread's
/// change (the lock is let go while waiting) and `broadcast` its own. A class whose state is
/// guarded by a lock and a condition keeps that state in one `Locked` and is `Sendable` without
/// an exemption of its own.
///
/// Built on a pthread mutex and condition variable (through `NSCondition`), not on `Mutex`:
/// ThreadSanitizer intercepts pthread locks, whereas `Mutex` on Linux hands a contended lock over
/// inside the kernel (a PI futex) where it cannot see it, so every contended `Mutex` read as a
/// data race under `make sanitize-thread` and real races could hide among the false ones.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value is touched only while `condition` is locked (inside
    // `withLock` or `withCondition`); it comes in and goes out of `withLock` as `sending`, as with
    // `Mutex`, so no other reference to it can escape.
    private let condition = NSCondition()
    private let storage: UnsafeMutablePointer<Value>

    package init(_ initialValue: sending Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: initialValue)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with the value while holding the lock. `body` must not call `withLock` or
    /// `withCondition` on the same instance (the lock is not recursive).
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&storage.pointee)
    }

    /// Runs `body` while holding the lock, with a view of the value through which it may also wait
    /// for other threads' changes, or use a value that is not `Sendable` in place (a C handle).
    /// Waiting blocks: for the framework's own threads, never a Swift task. `body` must not keep
    /// the view or what it holds, nor call `withLock` or `withCondition` on the same instance.
    package func withCondition<Result, E: Error>(_ body: (Held) throws(E) -> Result) throws(E) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(Held(storage: storage, condition: condition))
    }

    /// The value while its lock is held (inside `withCondition` only). Each access reads or writes
    /// the value itself, so what another thread changed during a `wait` is seen afterwards.
    @dynamicMemberLookup
    package struct Held {
        fileprivate let storage: UnsafeMutablePointer<Value>
        fileprivate let condition: NSCondition

        /// The whole value.
        package var value: Value {
            get { storage.pointee }
            nonmutating _modify { yield &storage.pointee }
        }

        package subscript<Member>(dynamicMember member: WritableKeyPath<Value, Member>) -> Member {
            get { storage.pointee[keyPath: member] }
            nonmutating _modify { yield &storage.pointee[keyPath: member] }
        }

        /// Lets go of the lock until another thread broadcasts (or a spurious wake-up), then holds
        /// it again. Check what you wait for again afterwards, in a loop.
        package func wait() {
            condition.wait()
        }

        /// As `wait()`, returning false when `deadline` passed first.
        @discardableResult
        package func wait(until deadline: Date) -> Bool {
            condition.wait(until: deadline)
        }

        /// As `wait()`, until `deadline` on `clock` at the latest (a `ManualClock` in tests).
        package func wait(on clock: any BlockingClock, until deadline: ContinuousClock.Instant) {
            clock.wait(on: condition, until: deadline)
        }

        /// Wakes every thread waiting on this value.
        package func broadcast() {
            condition.broadcast()
        }
    }
}
