/// A node's failure, as the context's events (`.failed`) and error handler tell it.
public struct NodeFailure: Error, Sendable, CustomStringConvertible {
    /// The failing node's type name and identity, e.g. "Grayscale#3f2a".
    public var node: String { reference.name }
    /// The failing node.
    public let reference: NodeReference
    public let error: Error
    /// A source's failure that its `run(on:)` also throws.
    let isThrownByRun: Bool

    init(reference: NodeReference, error: Error, isThrownByRun: Bool) {
        self.reference = reference
        self.error = error
        self.isThrownByRun = isThrownByRun
    }

    package static func name(of node: AnyObject) -> String {
        let id = UInt(bitPattern: ObjectIdentifier(node).hashValue) & 0xFFFF
        return "\(type(of: node))#\(String(id, radix: 16))"
    }

    public var description: String { "\(node) failed: \(error)" }
}
