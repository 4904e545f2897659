import ELImage

/// An error as the CLI says it: the library's words without its type names (a failing node's
/// "VideoEncoder#3f2a failed: VideoEncoder: ..." becomes what happened), on one line.
func userMessage(for error: Error) -> String {
    let text: String
    switch error {
    case let failure as NodeFailure: return userMessage(for: failure.error)
    case let ELImageError.invalidState(_, reason): text = reason
    default: text = "\(error)"
    }
    return text.replacingOccurrences(of: "\n", with: " ")
}
