import ELImage
import Synchronization

/// A source that reads uncompressed video, a Y4M file or a raw YUV file, and pushes each frame
/// into the graph, with the same pacing, statistics and close as `MovieInput`.
///
/// ```swift
/// let clip = try YUVFileInput(y4m: "clip.y4m")
/// clip --> Grayscale() --> sink
/// try await clip.run(on: context)        // returns after the last frame and end-of-stream
/// ```
///
/// The file is read on its own thread. A file cut short inside a frame ends the run: the frames
/// before are delivered, then end-of-stream, then `run(on:)` throws
/// `ELImageError.malformedMedia` with the frame number.
public final class YUVFileInput: ImageOutput, ClosableNode {
    public let outputs = OutputTargets()

    /// How the file stores its frames.
    public enum Layout: Sendable, Equatable {
        /// A Y4M file: its header says size, format, rate and colours.
        case y4m
        /// Frames of `format` one after another, with nothing around them.
        case raw(width: Int, height: Int, format: PixelFormat, frameRate: Y4MHeader.Ratio)
    }

    /// How many frames to read and how fast.
    public struct Options: Sendable {
        /// `.asFastAsPossible` waits for the graph and loses nothing; `.realTime` delivers each
        /// frame at its time and drops late ones.
        public var pacing: SourcePacing
        /// Where to begin: the first frame at or after this time (frame n is at n / the frame rate).
        public var start: MediaTime?
        /// How much to deliver from where the run begins: the frames that begin before it ends.
        public var duration: MediaTime?
        /// Stops after this many frames.
        public var frameLimit: Int?
        /// A turn (rotation, mirroring) of every frame on its way into the graph.
        public var orientation: Orientation
        /// Replaces the colour space the file says (or, for raw files, the default for its height).
        public var colorSpace: (@Sendable (ColorSpace) -> ColorSpace)?

        public init(pacing: SourcePacing = .asFastAsPossible, frameLimit: Int? = nil, orientation: Orientation = .up,
                    colorSpace: (@Sendable (ColorSpace) -> ColorSpace)? = nil, start: MediaTime? = nil,
                    duration: MediaTime? = nil) {
            (self.pacing, self.frameLimit, self.orientation, self.colorSpace) = (pacing, frameLimit, orientation, colorSpace)
            (self.start, self.duration) = (start, duration)
        }
    }

    /// The file.
    public let path: String
    public let layout: Layout
    /// The frame size and rate.
    public let width: Int, height: Int, frameRate: Y4MHeader.Ratio
    /// The layout of the file's frames (`.i420p10` for a `C420p10` Y4M).
    public let pixelFormat: PixelFormat
    /// The colour space frames are converted with.
    public let colorSpace: ColorSpace
    /// The options given at creation.
    public let options: Options
    private let runner = SourceRunner(name: "ELImage.yuv-input", policy: .backPressure(capacity: 2))
    /// The reader that read the header, handed to the first run: a FIFO or a pipe can be read
    /// only once, so the file is not opened again for it.
    private let headerReader: Mutex<(any YUVFrameReader)?>

    /// Counters of the current or last run.
    public var statistics: SourceStatistics { runner.statistics }

    /// Opens the Y4M file at `path` and reads its header. The first run reads on from there (so a
    /// FIFO or a pipe works); each later run opens the file again.
    /// - Throws: as `Y4MReader.init(path:)`.
    public convenience init(y4m path: String, options: Options = Options()) throws {
        try self.init(path: path, layout: .y4m, options: options)
    }

    /// A raw file of `format` frames at `frameRate`.
    /// - Throws: as `RawYUVReader.init`.
    public convenience init(raw path: String, width: Int, height: Int, format: PixelFormat,
                            frameRate: Y4MHeader.Ratio = 25, options: Options = Options()) throws {
        try self.init(path: path, layout: .raw(width: width, height: height, format: format, frameRate: frameRate),
                      options: options)
    }

    private init(path: String, layout: Layout, options: Options) throws {
        let reader = try Self.open(path, layout, colorSpace: nil)
        self.path = path
        self.layout = layout
        self.options = options
        (width, height, frameRate) = (reader.size.width, reader.size.height, reader.frameRate)
        pixelFormat = reader.pixelFormat
        let colorSpace = options.colorSpace.map { $0(reader.colorSpace) } ?? reader.colorSpace
        self.colorSpace = colorSpace
        reader.colorSpace = colorSpace
        headerReader = Mutex(reader)
    }

    /// Reads the file and feeds its frames into the graph, then sends end-of-stream; returns when
    /// the last frame went through. Cancelling the calling task stops it like `cancel()`.
    /// - Throws: `ELImageError.malformedMedia` with the frame number for a file cut short or
    ///   damaged (the frames before were delivered); `ELImageError.invalidState` when a run is
    ///   going on; errors from the upload.
    public func run(on context: RenderContext) async throws {
        let opened = headerReader.withLock { $0.take() }
        let (first, limit) = frameSpan()
        let producer = Producer(path: path, layout: layout, colorSpace: colorSpace, reader: opened,
                                skip: first, limit: limit, orientation: options.orientation)
        try await runner.run(producer, for: self, on: context, pacing: options.pacing,
                             frameInterval: frameRate.frameInterval)
    }

    /// The first frame `options.start` selects, and how many frames to deliver from it
    /// (`options.duration` and `options.frameLimit`, whichever ends first).
    private func frameSpan() -> (first: Int, count: Int) {
        let rate = Double(frameRate.numerator) / Double(max(1, frameRate.denominator))
        // The first frame whose time is at or after `seconds` (a hair's tolerance for rounding).
        func frame(at seconds: Double) -> Int { max(0, Int((seconds * rate - 1e-6).rounded(.up))) }
        let first = options.start.map { frame(at: $0.seconds) } ?? 0
        let startSeconds = Double(first) / rate
        let timed = options.duration.map { frame(at: (options.start?.seconds ?? startSeconds) + $0.seconds) - first }
        return (first, min(timed ?? .max, options.frameLimit ?? .max))
    }

    /// Stops the current run without waiting: no further frame is delivered, end-of-stream is sent
    /// and `run(on:)` returns. Safe from any thread. The framework's own stop (a signal, a frame
    /// count); a user calls `close()` (from a callback: `Task { await input.close() }`).
    package func cancel() {
        runner.cancel()
    }

    /// Stops the current run and returns once it has ended and its threads are
    /// joined. Called by the render context's `close()`; idempotent.
    public func close() async {
        await runner.close()
        headerReader.withLock { $0.take()?.close() }
    }

    /// Reads the frames on the runner's producer thread, from `reader` when given, else from the
    /// file opened at the first frame.
    private struct Producer: FrameProducer {
        let path: String, layout: Layout, colorSpace: ColorSpace, limit: Int, orientation: Orientation
        var reader: (any YUVFrameReader)?
        var count = 0
        /// Frames still to be read past before the first one delivered.
        var skip: Int

        init(path: String, layout: Layout, colorSpace: ColorSpace, reader: (any YUVFrameReader)?, skip: Int, limit: Int,
             orientation: Orientation) {
            (self.path, self.layout, self.colorSpace, self.reader) = (path, layout, colorSpace, reader)
            (self.skip, self.limit, self.orientation) = (skip, limit, orientation)
        }

        mutating func next(_ control: ProducerControl) throws -> ProducedFrame {
            if reader == nil { reader = try YUVFileInput.open(path, layout, colorSpace: colorSpace) }
            while skip > 0, !control.isCancelled {
                guard try reader?.nextFrame() != nil else { break }
                skip -= 1
            }
            guard count < limit, let frame = try reader?.nextFrame() else {
                reader?.close()
                return .endOfStream
            }
            count += 1
            return .picture(frame, orientation: orientation)
        }
    }

    private static func open(_ path: String, _ layout: Layout, colorSpace: ColorSpace?) throws -> any YUVFrameReader {
        switch layout {
        case .y4m:
            let reader = try Y4MReader(path: path)
            if let colorSpace { reader.colorSpace = colorSpace }
            return reader
        case let .raw(width, height, format, frameRate):
            return try RawYUVReader(path: path, width: width, height: height, format: format, frameRate: frameRate,
                                    colorSpace: colorSpace)
        }
    }
}

/// What `YUVFileInput` needs of a Y4M or raw reader.
private protocol YUVFrameReader: AnyObject {
    var size: (width: Int, height: Int) { get }
    var frameRate: Y4MHeader.Ratio { get }
    var colorSpace: ColorSpace { get set }
    var pixelFormat: PixelFormat { get }
    func nextFrame() throws -> PixelBuffer?
    func close()
}

extension Y4MReader: YUVFrameReader {
    var size: (width: Int, height: Int) { (header.width, header.height) }
    var frameRate: Y4MHeader.Ratio { header.frameRate }
    var pixelFormat: PixelFormat { header.pixelFormat }
}

extension RawYUVReader: YUVFrameReader {
    var size: (width: Int, height: Int) { (width, height) }
    var pixelFormat: PixelFormat { format }
}
