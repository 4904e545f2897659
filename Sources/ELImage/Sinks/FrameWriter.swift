/// What a `ReadbackSink` writes its frames with: an encoder and a file (x264 + MP4, Y4M, raw
/// RGBA, a picture, a CPU frame consumer). Made by the sink at the first frame, when the size is known, and used on
/// the sink's worker thread only.
package protocol FrameWriter: AnyObject {
    /// Writes frame `number` (read back into `buffer`, stamped `time` in the sink owner's units).
    /// Returns `.full` when the output reached its limit and the run should finish after it.
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

/// Whether a `FrameWriter` takes more frames.
package enum FrameWriteVerdict: Sendable, Equatable {
    case more
    /// The output reached its limit (a size): the run finishes after this frame.
    case full
}
