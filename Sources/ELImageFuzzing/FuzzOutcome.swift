import ELImage

/// What one fuzz input did to a parser.
public enum FuzzOutcome: Sendable, CustomStringConvertible {
    /// The input parsed; this many frames (or images) were read.
    case parsed(frames: Int)
    /// The parser refused the input with a typed error that says what failed (`ELImageError`,
    /// `AudioCaptureError`, `UsageError`): the expected way to fail.
    case rejected(any Error)
    /// The parser broke its contract (an untyped error, or output that contradicts itself), or the
    /// harness could not run: a bug to fix.
    case failed(String)

    public var description: String {
        switch self {
        case .parsed(let frames): "parsed, \(frames) frame\(frames == 1 ? "" : "s")"
        case .rejected(let error): "rejected: \(error)"
        case .failed(let reason): "FAILED: \(reason)"
        }
    }
}
