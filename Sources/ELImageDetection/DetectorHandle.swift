import ELImage

/// A detector made in C (a Haar cascade, the landmark networks): its handle, used by one thread at
/// a time (OpenCV's classifiers and networks are not safe to share), destroyed once with the
/// object.
final class DetectorHandle: Sendable {
    /// Used only under its lock.
    private let handle: Locked<OpaquePointer>
    private let destroy: @Sendable (OpaquePointer) -> Void

    /// Calls `create` with a buffer for its error message; throws `invalidInput` with that message
    /// and `hint` when it returns NULL.
    init(create: (UnsafeMutablePointer<CChar>, Int) -> OpaquePointer?, destroy: @escaping @Sendable (OpaquePointer) -> Void,
         hint: String) throws {
        var message = [CChar](repeating: 0, count: 1024)
        guard let handle = create(&message, message.count) else {
            throw ELImageError.invalidInput(what: String(messageBuffer: message), hint: hint)
        }
        self.handle = Locked(handle)
        self.destroy = destroy
    }

    deinit { handle.withLock { destroy($0) } }

    /// Runs `body` with the handle, under the lock.
    func use<Result>(_ body: (OpaquePointer) throws -> Result) throws -> Result {
        try handle.withCondition { try body($0.value) }  // used in place: it never leaves the lock
    }
}
