/// A parser returned something that contradicts itself (e.g. a frame whose bytes do not match its
/// size), or the harness could not hand it the input. The fuzzer stops on it like on a crash.
public struct FuzzContractViolation: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }

    /// Throws a violation described by `message` unless `condition` holds.
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw FuzzContractViolation(message()) }
    }
}
