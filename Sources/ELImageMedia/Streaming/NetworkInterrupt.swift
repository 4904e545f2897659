import CFFmpeg
import ELImage

/// libavformat's interrupt callback for one live stream: a blocking network call (connecting,
/// sending into a full socket) gives up when its deadline passes or when the stream is aborted,
/// instead of hanging the network thread.
final class NetworkInterrupt: Sendable {
    private let state = Locked<(deadline: ContinuousClock.Instant?, aborted: Bool)>((nil, false))

    /// Gives the calls from now on until `timeout` from now.
    func arm(for timeout: Duration) {
        state.withLock { $0.deadline = .now + timeout }
    }

    /// Gives the calls from now on until `deadline`.
    func arm(until deadline: ContinuousClock.Instant) {
        state.withLock { $0.deadline = deadline }
    }

    /// Every call from now on gives up at once.
    func abort() { state.withLock { $0.aborted = true } }

    var shouldStop: Bool {
        state.withLock { state in state.aborted || (state.deadline.map { .now >= $0 } ?? false) }
    }

    /// Whether the stream was aborted (rather than a call timing out).
    var isAborted: Bool { state.withLock { $0.aborted } }

    /// The callback, pointing at this object (which must outlive the format context using it).
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<NetworkInterrupt>.fromOpaque(opaque).takeUnretainedValue().shouldStop ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
