/// The node an event is about: its name for people (`Camera#1a2b`) and its identity for code.
public struct NodeReference: Sendable, Hashable, CustomStringConvertible {
    /// The node's type name and a short identity, e.g. "Grayscale#3f2a".
    public let name: String
    /// The node's identity; nil when only its name was known where the event was made.
    public let id: ObjectIdentifier?

    /// Names `node`.
    public init(_ node: AnyObject) {
        name = NodeFailure.name(of: node)
        id = ObjectIdentifier(node)
    }

    package init(name: String, id: ObjectIdentifier?) {
        self.name = name
        self.id = id
    }

    /// True when the event is about `node` itself.
    public func refers(to node: AnyObject) -> Bool { id == ObjectIdentifier(node) }

    public var description: String { name }
}
