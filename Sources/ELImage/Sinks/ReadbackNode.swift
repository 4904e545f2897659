/// A CPU sink that is one configuration of the readback node: what it packs, how it queues and
/// which `FrameWriter` writes (its `readback`). Taking frames and pictures (a recipe runs inside
/// the pack), the end of a stream, the packing it agrees with the line before it and its line in a
/// printed plan are the same for every such sink, and are written once, here: `RawDataOutput`,
/// `YUVDataOutput` (a writer of your own), `FrameStream` and `FileOutput` are this node. A node adds
/// its own ends (`finish()`, `close()`), counters and safety net. The sinks that change a frame
/// before they read it back (`VirtualCamera` scales it to the device's size, `DetectorOutput`
/// shrinks it to the analysis size) or that keep more than a readback (`VideoEncoder`'s recording,
/// `Snapshot`'s requests) use the same `ReadbackSink` with a `receive` of their own.
package protocol ReadbackNode: ImageInput, PackingSink, ClosableNode, PlanDescribing {
    associatedtype Readback: FrameReadback
    /// The readback this node is a configuration of.
    var readback: Readback { get }
}

extension ReadbackNode {
    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        if !frame.format.holdsPicture, readback.configuration.picturesOnly {
            let path = readback.configuration.path
            let name = path == "\(Self.self)" ? path : "\(Self.self) (\(path))"
            throw ELImageError.invalidInput(what: "\(name) got a \(frame.format) frame",
                                            hint: "connect it after a node that outputs RGBA")
        }
        try receive(frame as any PackablePicture, in: context)
    }

    /// Takes a picture as it is: a recipe runs inside the pack (`Recipe.packed`).
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        try receive(picture as any PackablePicture, in: context)
    }

    package func receive(_ picture: any PackablePicture, in context: isolated RenderContext) throws {
        try readback.take(picture, owner: self, in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        readback.endOfStream()
    }

    package var packing: (format: PixelFormat, chromaDownsampling: ChromaDownsampling)? { readback.configuration.packing }

    package var packingChromaLocation: ChromaLocation? { readback.configuration.chromaLocation }

    package var planSummary: String { readback.planSummary }

    /// Waits until the writer has every frame taken so far and the worker has ended; returns the
    /// frames written. An output that takes stream after stream takes frames again afterwards.
    /// - Throws: the failure that stopped the readback (also a `.failed` event of the context).
    @discardableResult
    public func finish() async throws -> Int {
        try await readback.finish()
    }

    /// Stops: the frames still queued are dropped (counted), the output is completed with what was
    /// written, the worker is joined. Idempotent. (The render context's `close()` calls `finish()`.)
    public func close() async {
        await readback.close()
    }
}

/// What a `ReadbackNode` reads back through: one run for the node's life (`ReadbackSink`: a file,
/// a stream, a device), or a run per stream (`ReadbackRuns`: a callback that takes any number of
/// streams one after the other).
package protocol FrameReadback: Sendable {
    var configuration: ReadbackSink.Configuration { get }
    /// What it does per frame, for a printed plan.
    var planSummary: String { get }
    /// Packs, fences and queues `picture`; registers `owner` with `context` when a worker starts.
    func take(_ picture: any PackablePicture, owner: any ClosableNode, in context: isolated RenderContext) throws
    /// The stream ended: what is queued is handed over, and the run ends.
    func endOfStream()
    /// Hands over what is queued and ends; returns once the worker has ended, with the frames
    /// written. Throws the failure that stopped it.
    func finish() async throws -> Int
    /// Stops at once (what is queued is dropped); returns once the worker has ended.
    func close() async
}

extension ReadbackSink: FrameReadback {
    package func take(_ picture: any PackablePicture, owner: any ClosableNode, in context: isolated RenderContext) throws {
        try take(picture, registering: owner, in: context)
    }

    package func endOfStream() {
        requestFinish()
    }

    /// Frames the writer took.
    package var written: Int { counts.written }

    /// Frames dropped (`.drop` or `.replaceOldest` with a full queue) or left behind by a failure.
    package var dropped: Int { counts.dropped }

    package func finish() async throws -> Int {
        requestFinish()
        _ = try await outcome().get()
        return counts.written
    }

    package func close() async {
        requestStop()
        _ = await outcome()
    }
}

extension ReadbackRuns: FrameReadback {}
