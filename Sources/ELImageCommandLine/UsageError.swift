/// A mistake in how the tool was called: the `elimage` command prints it after `usage:` and exits
/// with status 2. The description names the option, what was given and what to write instead.
public struct UsageError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
