/// The source whose picture (or end of stream) the render thread is handing through the graph
/// right now, for the nodes that behave by where their frames come from: a recording keeps a
/// movie's sound, a detector waits for a file but never for a camera.
///
/// `SourceRunner` binds it around each delivery (a task-local value, bound on the render thread
/// for the synchronous walk through the graph), so a node reads it in `receive` and
/// `endOfStream`. It is nil for frames pushed another way (`RawDataInput.process`, a test).
package struct FrameOrigin: Sendable {
    /// The source node (a `MovieInput`, a `Camera`, ...).
    package let source: any ImageOutput
    /// How it feeds the graph.
    package let policy: SourcePolicy
    /// When it feeds the graph.
    package let pacing: SourcePacing

    /// True for a live source (newest wins, e.g. a camera) or a file played in real time: a node
    /// must not slow it down.
    package var isLive: Bool { policy == .newestWins || pacing == .realTime }

    /// The origin of the frame being delivered on this thread, if a source runner delivers it.
    @TaskLocal package static var current: FrameOrigin?
}
