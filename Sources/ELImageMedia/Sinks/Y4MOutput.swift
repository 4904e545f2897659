import ELImage
import Foundation

/// A sink that writes the frames it receives to a YUV4MPEG2 (`.y4m`) file, converted to Y'CbCr
/// on the GPU: the lossless hand-over to other tools (`ffmpeg -i out.y4m ...`).
///
/// ```swift
/// let y4m = try Y4MOutput(path: "out.y4m", frameRate: 25)
/// movie --> Grayscale() --> y4m
/// try await movie.run(on: context)
/// try await y4m.finish()
/// ```
///
/// The header carries the chroma siting (`C420mpeg2` for the default left siting, `C420jpeg`
/// for centred) and `XCOLORRANGE=LIMITED|FULL`. Y4M has no timestamps: frames are written in
/// order and a reader times them by the header's frame rate. The readback and the writing happen
/// on a worker thread with a shared GL context; the render thread only queues the converted
/// planes. Failures (a full disk) go to the render context's error handler and are thrown by
/// `finish()`; the frames written before stay in the file.
public final class Y4MOutput: ImageInput, ClosableNode, @unchecked Sendable {
    // @unchecked Sendable: all state is in `core` (Sendable, lock-guarded).

    public let inputSlots = InputSlots(count: 1)
    /// The file.
    public var path: String { core.path }
    private let core: FileSinkCore

    /// Creates (truncates) `path` now, so an unwritable path fails here; the header is written
    /// with the first frame, whose size the file takes.
    ///
    /// - Parameters:
    ///   - frameRate: the header's `F` field.
    ///   - format: `.i420` (default), `.i422`, `.i444` or `.gray8`.
    ///   - colorSpace: the matrix and range to convert with; `nil`: each frame's own.
    ///   - chromaLocation: the siting of subsampled chroma (4:2:0: `.left` → `C420mpeg2`,
    ///     `.center` → `C420jpeg`, `.topLeft` → `C420paldv`); `nil` (default): the first frame's
    ///     source's (`TextureFrame.chromaLocation`: a Y4M or movie input's own, `.left` for RGB).
    ///   - chromaDownsampling: the chroma filter; `.matched` (default) writes a Y'CbCr source
    ///     sited the same back with its chroma intact, `.average` costs fewer texture reads.
    ///   - whenQueueFull: `.wait` (default; nothing is lost) or `.drop` (counted in `dropped`).
    /// - Throws: `ELImageError.invalidInput` for a format Y4M cannot hold or a bad frame rate;
    ///   `ELImageError.io` when the file cannot be created.
    public init(path: String, frameRate: Y4MHeader.Ratio = 25, format: PixelFormat = .i420, colorSpace: ColorSpace? = nil,
                chromaLocation: ChromaLocation? = nil, chromaDownsampling: ChromaDownsampling = .matched,
                queueCapacity: Int = 4,
                whenQueueFull: EncoderSettings.QueueFullPolicy = .wait) throws {
        // Checks the format and rate now rather than at the first frame.
        _ = try Y4MHeader(width: 2, height: 2, format: format, frameRate: frameRate, chromaLocation: chromaLocation ?? .left)
        // Checks now that the file can be created, without touching a file already at `path`.
        let probe = try POSIXFileWriter(path: path)
        try probe.close()
        probe.remove()
        core = FileSinkCore(
            path: path, name: "y4m", format: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
            chromaDownsampling: chromaDownsampling, capacity: queueCapacity, policy: whenQueueFull,
            makeWriter: { picture in
                let header = try Y4MHeader(width: picture.width, height: picture.height, format: format, frameRate: frameRate,
                                           colorRange: picture.colorSpace.range, chromaLocation: picture.chromaLocation)
                return Y4MFrameWriter(try Y4MWriter(path: path, header: header))
            },
            closeUnused: {})
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
        try core.receive(frame, node: self, in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        core.requestFinish()
    }
}

/// Adapts `Y4MWriter` to the file sink's worker.
private final class Y4MFrameWriter: FrameFileWriting {
    let writer: Y4MWriter
    init(_ writer: Y4MWriter) { self.writer = writer }
    func write(_ buffer: PixelBuffer) throws { try writer.write(buffer) }
    func close() throws { try writer.close() }
    func discard() { writer.discard() }
}
