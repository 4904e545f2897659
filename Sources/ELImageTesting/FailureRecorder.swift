import ELImage

/// Records what reaches a render context's error handler (it replaces the handler).
public final class FailureRecorder: Sendable {
    private let failures = Locked<[NodeFailure]>([])

    /// Starts recording the failures `context` reports.
    public init(_ context: RenderContext) {
        context.setErrorHandler { [self] failure in failures.withLock { $0.append(failure) } }
    }

    /// Every failure so far, in the order reported.
    public var all: [NodeFailure] { failures.withLock { $0 } }

    /// The `ELImageError`s among the failures.
    public var errors: [ELImageError] { all.compactMap { $0.error as? ELImageError } }
}
