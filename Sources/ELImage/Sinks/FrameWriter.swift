/// What a readback sink writes its frames with: an encoder and a file (x264 + MP4, Y4M, raw
/// RGBA, a picture), a CPU frame consumer, or a writer of your own given to `YUVDataOutput`, which
/// owns the hand-off, back-pressure, readback and counting. Made by the sink at the first frame
/// of each stream, when the size is known, and used on the sink's worker thread only.
///
/// Only `write` is required; the others do nothing by default.
///
/// ```swift
/// final class Checksums: FrameWriter {
///     private(set) var sums: [UInt64] = []
///     func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
///         sums.append(buffer.data.reduce(0) { $0 &* 31 &+ UInt64($1) })
///         return .more
///     }
/// }
/// let output = try YUVDataOutput(format: .i420) { Checksums() }
/// ```
public protocol FrameWriter: AnyObject {
    /// Writes frame `number` of the stream (0 first), read back into `buffer` (reused for the
    /// next frame: copy what you keep); `time` is the sink's own stamp of it (0 where the sink
    /// has none: read `buffer.timestamp`). Returns `.full` when the output reached its limit and
    /// the run should finish after it. A throw ends the stream's output, reported as the node's
    /// failure.
    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict
    /// Completes the output after the last frame, still under its temporary name.
    func finish() throws
    /// Puts the completed output in place (renames the staged file onto its path).
    func publish() throws
    /// Ends the output after `error`: what was written is kept (put in place when it can be),
    /// an output with nothing in it is removed.
    func salvage(after error: ELImageError)
    /// Removes the output; a file already at the path stays as it was.
    func discard()
}

extension FrameWriter {
    public func finish() throws {}
    public func publish() throws {}
    public func salvage(after error: ELImageError) {}
    public func discard() {}
}

/// Whether a `FrameWriter` takes more frames.
public enum FrameWriteVerdict: Sendable, Equatable {
    case more
    /// The output reached its limit (a size): the run finishes after this frame.
    case full
}
