import ELImage
import Foundation

/// A sink that appends every frame it receives to a file as raw RGBA: `width * 4` bytes a row,
/// top row first, frames one after another, nothing else (`ffmpeg -f rawvideo -pix_fmt rgba
/// -s WxH -i file` reads it).
///
/// The readback and the writing happen on a worker thread with a shared GL context; the render
/// thread only queues the frame. Write errors keep their `errno` (through `MediaFileWriter`),
/// go to the render context's error handler and are thrown by `finish()`.
public final class RawRGBAFileOutput: ImageInput, ClosableNode, @unchecked Sendable {
    // @unchecked Sendable: all state is in `core` (Sendable, lock-guarded).

    public let inputSlots = InputSlots(count: 1)
    /// The file.
    public var path: String { core.path }
    private let core: FileSinkCore

    /// Creates `PATH.partial` now, renamed onto `path` when the sink finishes with at least one
    /// frame (a file already at `path` is untouched until then).
    /// - Throws: `ELImageError.io` when the file cannot be created.
    public convenience init(path: String, queueCapacity: Int = 4,
                            whenQueueFull: EncoderSettings.QueueFullPolicy = .wait) throws {
        try self.init(writer: try POSIXFileWriter(path: path), queueCapacity: queueCapacity, whenQueueFull: whenQueueFull)
    }

    /// Writes through `writer` (yours, or one that fails on purpose in a test).
    public init(writer: any MediaFileWriter, queueCapacity: Int = 4,
                whenQueueFull: EncoderSettings.QueueFullPolicy = .wait) throws {
        core = FileSinkCore(
            path: writer.path, name: "rgba-file", format: .rgba, colorSpace: nil, chromaLocation: .left,
            capacity: queueCapacity, policy: whenQueueFull,
            makeWriter: { _ in RawFrameWriter(writer) },
            closeUnused: {
                try? writer.close()
                writer.remove()
            })
    }

    /// Frames written to the file so far.
    public var framesWritten: Int { core.framesWritten }
    /// Frames dropped because the queue was full (`.drop` policy only) or after a failure.
    public var dropped: Int { core.dropped }

    /// Writes the frames still queued and closes the file (it also finishes by itself at
    /// end-of-stream). Returns the number of frames in the file.
    /// - Throws: the error that stopped the writing (`ELImageError.io` with `errno`).
    @discardableResult
    public func finish() async throws -> Int {
        core.requestFinish()
        return try await core.outcome().get()
    }

    /// Finishes the file (as `finish()`, failures go to the error handler) and returns once the
    /// worker thread has ended. Called by the render context's `close()`; idempotent.
    public func close() async {
        await core.close()
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard frame.format == .rgba8 else {
            throw ELImageError.invalidInput(what: "RawRGBAFileOutput got a \(frame.format) frame",
                                            hint: "connect it after a node that outputs RGBA")
        }
        try core.receive(frame, node: self, in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        core.requestFinish()
    }
}

/// Writes each frame's bytes (tightly packed RGBA) through a `MediaFileWriter`.
private final class RawFrameWriter: FrameFileWriting {
    let writer: any MediaFileWriter
    init(_ writer: any MediaFileWriter) { self.writer = writer }
    func write(_ buffer: PixelBuffer) throws {
        try buffer.data.withUnsafeBytes { try writer.write($0) }
    }
    func close() throws {
        try writer.synchronize()
        try writer.close()
        try writer.publish()
    }
    func discard() {
        try? writer.close()
        writer.remove()
    }
}
