import ELImage

/// Records what reaches a render context's error handler (it replaces the handler), so that a
/// test reads the failures instead of finding them printed, and can wait for them.
public final class FailureRecorder: Sendable {
    private let failures = Waitable<[NodeFailure]>([])

    /// Starts recording the failures `context` reports.
    public init(_ context: RenderContext) {
        context.setErrorHandler { [failures] failure in failures.update { $0.append(failure) } }
    }

    /// Every failure so far, in the order reported.
    public var all: [NodeFailure] { failures.value }

    /// The `ELImageError`s among the failures.
    public var errors: [ELImageError] { all.compactMap { $0.error as? ELImageError } }

    /// Waits until `count` failures in all were reported; false when `timeout` passed first.
    @discardableResult
    public func waitForFailures(_ count: Int, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await failures.wait(timeout: timeout) { $0.count >= count }
    }
}
