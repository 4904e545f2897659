import Foundation

/// A value that threads share, reached only while holding its lock: the framework's one lock type.
///
/// It has the shape of the standard library's `Mutex` (`withLock` hands the body the value
/// `inout`), but is built on a pthread mutex (through `NSLock`). ThreadSanitizer intercepts pthread
/// locks; `Mutex` on Linux hands a contended lock over inside the kernel (a PI futex), where
/// ThreadSanitizer cannot see it, so every contended `Mutex` read as a data race under
/// `make sanitize-thread` and real races could hide among the false ones.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is touched only inside `withLock`, under `lock`; it comes in
    // and goes out as `sending`, as with `Mutex`, so no other reference to it can escape.
    private let lock = NSLock()
    private var value: Value

    package init(_ initialValue: sending Value) {
        value = initialValue
    }

    /// Runs `body` with the value while holding the lock. `body` must not call `withLock` on the
    /// same instance (the lock is not recursive).
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
