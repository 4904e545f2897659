/// What a node tells of its own work, beyond the events every node has: a recording's fragments
/// and files (`RecordingEvent`), a virtual camera's readers (`VirtualCameraEvent`), a node of
/// your own's news. A node publishes it on its render context's event stream
/// (`RenderContext.publish(_:from:)`), where it comes as `RenderEvent.message`, so that a
/// program hears every node in one place, in order with the failures and ends.
public protocol NodeMessage: Sendable, CustomStringConvertible {}
