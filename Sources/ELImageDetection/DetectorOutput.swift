import ELImage
import Foundation

/// A sink for a side branch of the graph that runs a `MetadataDetector` (faces, codes) without
/// slowing the video: the AVCaptureMetadataOutput of ELImage.
///
/// On the render thread, each sampled frame is shrunk on the GPU to the analysis size and handed
/// to a `ReadbackSink` (the path of every CPU sink), which converts it to the detector's
/// `analysisFormat` (luma, or RGBA for colour models) and fences it; the sink's worker thread
/// (`ELImage.detect`, with a shared GL context) waits for the fence, reads the image back and
/// runs the detector.
///
/// **Results arrive as they are found**: each analysed frame's `Metadata` (tagged with the
/// frame's number and timestamp) goes to the handler and to `metadata` on the worker thread as
/// soon as its analysis ends. By default the node follows its source (`Settings.waitsForDetector`
/// nil): frames of a file (a movie, a Y4M file, a picture, frames pushed by hand) wait for their
/// analysis, so every sampled frame is analysed, its result is in before the frame goes on to
/// the nodes connected after this one (an overlay draws it in step), and all results are in when
/// the source's `run(on:)` returns; a live source (a camera, a file played in real time) is
/// never slowed: while the worker is busy, a newer image replaces the waiting one (counted in
/// `statistics.dropped`).
///
/// The source's end of stream ends the analysis: what waits is analysed and `metadata` finishes,
/// so `for await` over it ends with the stream (one stream per node, as with `FrameStream`; later
/// frames go by unanalysed). A failing detector is reported once to the context's error handler
/// (naming the frame); the frames go on past the node, later ones are not analysed. `close()` (or
/// the context's) ends it as the end of stream does and joins the worker.
public final class DetectorOutput: ImageInput, ClosableNode {
    /// How often and how large the detector looks.
    public struct Settings: Sendable {
        /// Frames are shrunk to fit inside this size (aspect kept); nil: the detector's preferred size.
        public var analysisSize: (width: Int, height: Int)?
        /// Look at every Nth frame (1: every frame the worker can take).
        public var interval = 1
        /// At most this many analyses per second of frame time; nil: no limit.
        public var maximumRate: Double?
        /// true: the render thread waits until the worker has analysed each sampled frame (none is
        /// dropped, and the handler has run before the frame goes on to the node's siblings
        /// added after it, e.g. an overlay); false: the newest image wins, the main path never
        /// waits. nil (the default): true for frames of a file or pushed by hand, false for
        /// frames of a live source (a camera) or of a file played in real time.
        public var waitsForDetector: Bool?

        public init(analysisSize: (width: Int, height: Int)? = nil, interval: Int = 1, maximumRate: Double? = nil,
                    waitsForDetector: Bool? = nil) {
            self.analysisSize = analysisSize
            self.interval = interval
            self.maximumRate = maximumRate
            self.waitsForDetector = waitsForDetector
        }
    }

    /// What happened to the frames that reached the node.
    public struct Statistics: Sendable, Equatable, CustomStringConvertible {
        /// Frames received.
        public var framesIn = 0
        /// Frames sent to the worker (the others were skipped by `interval` or `maximumRate`).
        public var sampled = 0
        /// Images the detector ran on.
        public var analysed = 0
        /// Sampled images replaced by a newer one before the worker took them, or left unanalysed
        /// by a failure.
        public var dropped = 0

        public init(framesIn: Int = 0, sampled: Int = 0, analysed: Int = 0, dropped: Int = 0) {
            self.framesIn = framesIn
            self.sampled = sampled
            self.analysed = analysed
            self.dropped = dropped
        }

        /// E.g. "25 frames in, 5 sampled, 5 analysed, 0 dropped".
        public var description: String { "\(framesIn) frames in, \(sampled) sampled, \(analysed) analysed, \(dropped) dropped" }
    }

    /// The sampling, on the render thread (the analyses and drops are the sink's counts).
    private struct Sampling {
        var framesIn = 0
        var sampled = 0
        var lastSampledTime: MediaTime?
    }

    public let inputSlots = InputSlots(count: 1)
    public let detector: any MetadataDetector
    public let settings: Settings
    /// Every analysed frame's metadata, in order, as each analysis ends; finishes after the last
    /// one at the source's end of stream (or `close()`). Keeps the newest 256 values for a slow
    /// reader.
    public let metadata: AsyncStream<Metadata>
    private let continuation: AsyncStream<Metadata>.Continuation
    private let writer: DetectionWriter
    private let sink: ReadbackSink
    private let sampling = Locked(Sampling())

    /// - Parameters:
    ///   - detector: what runs on each analysed image (`FaceDetector`, `CodeDetector`, or your own).
    ///   - settings: the analysis size, the sampling and whether the graph waits for the detector
    ///     (by default: for a file's frames, not for a camera's).
    ///   - handler: called with each analysed frame's metadata on the worker thread (keep it short).
    public init(detector: any MetadataDetector, settings: Settings = Settings(),
                handler: (@Sendable (Metadata) -> Void)? = nil) throws {
        guard settings.interval >= 1 else {
            throw ELImageError.invalidInput(what: "detector interval \(settings.interval)", hint: "analyse every Nth frame with N >= 1")
        }
        if let rate = settings.maximumRate, !(rate > 0) {
            throw ELImageError.invalidInput(what: "detector rate \(rate)", hint: "give a positive number of analyses per second")
        }
        let size = settings.analysisSize ?? detector.preferredAnalysisSize
        guard detector.analysisFormat == .gray8 || detector.analysisFormat == .rgba else {
            throw ELImageError.invalidInput(what: "the \(detector.name) detector's analysis format \(detector.analysisFormat)",
                                            hint: "analyse .gray8 (luma) or .rgba pictures")
        }
        guard size.width >= 8, size.height >= 8 else {
            throw ELImageError.invalidInput(what: "analysis size \(size.width)x\(size.height)", hint: "use at least 8x8, e.g. 320x180")
        }
        self.detector = detector
        self.settings = settings
        let (metadata, continuation) = AsyncStream.makeStream(of: Metadata.self, bufferingPolicy: .bufferingNewest(256))
        (self.metadata, self.continuation) = (metadata, continuation)
        let writer = DetectionWriter(detector) { found in
            handler?(found)
            continuation.yield(found)
        }
        self.writer = writer
        // One image waits for the worker, the newest (or the render thread waits for the detector:
        // decided per frame, by its source, unless the settings say). However the run ends (also
        // by a failure, or deinit's safety net), `metadata` ends with it.
        sink = ReadbackSink(.init(path: writer.path, threadName: "detect", format: detector.analysisFormat, capacity: 1,
                                  whenQueueFull: .replaceOldest),
                            open: { _ in writer },
                            onEnd: { _, _ in continuation.finish() })
    }

    /// The safety net for a node released without `close()`: the worker analyses what waits, ends
    /// in the background (never waited for here) and finishes `metadata`.
    deinit { sink.requestFinish() }

    /// The node's counters so far.
    public var statistics: Statistics {
        let counts = sink.counts
        return sampling.withLock { sampling in
            Statistics(framesIn: sampling.framesIn, sampled: sampling.sampled, analysed: counts.written,
                       dropped: counts.replaced + counts.lost)
        }
    }

    /// The analysis image size for a `width`×`height` frame: inside the analysis size, aspect kept,
    /// width a multiple of 4 (whole texels of the packed readback), never larger than the frame.
    public static func analysisSize(forFrame width: Int, _ height: Int, fittingIn box: (width: Int, height: Int))
        -> (width: Int, height: Int) {
        let scale = min(1, Double(box.width) / Double(width), Double(box.height) / Double(height))
        let scaledWidth = max(4, Int((Double(width) * scale).rounded()) / 4 * 4)
        return (scaledWidth, max(1, Int((Double(height) * scale).rounded())))
    }

    // MARK: Render thread

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard frame.format.holdsPicture else {
            throw ELImageError.invalidInput(what: "DetectorOutput got a \(frame.format) frame",
                                            hint: "connect it after a node that outputs RGBA")
        }
        let stopped = sink.isClosing  // closed, or failed: frames go by unanalysed
        let number = sampling.withLock { sampling -> Int? in
            let number = sampling.framesIn
            sampling.framesIn += 1
            guard !stopped, number % settings.interval == 0 else { return nil }
            if let rate = settings.maximumRate, let last = sampling.lastSampledTime,
               (frame.timestamp.seconds - last.seconds) < 1 / rate - 1e-6 {
                return nil
            }
            sampling.lastSampledTime = frame.timestamp
            sampling.sampled += 1
            return number
        }
        guard let number else { return }
        let size = Self.analysisSize(forFrame: frame.width, frame.height,
                                     fittingIn: settings.analysisSize ?? detector.preferredAnalysisSize)
        writer.expect(frame: number, width: frame.width, height: frame.height)
        let waits = settings.waitsForDetector ?? !(FrameOrigin.current?.isLive ?? false)
        // `time` carries the node's frame number to the writer.
        if try sink.take(try shrink(frame, to: size, in: context), time: Int64(number), owner: self,
                         waitsUntilWritten: waits, in: context) {
            context.register(self, stage: .sink)
        }
    }

    /// `frame` at `size`: itself when it has that size (the shrink's taps would blur it).
    private func shrink(_ frame: TextureFrame, to size: (width: Int, height: Int),
                        in context: isolated RenderContext) throws -> TextureFrame {
        if size.width == frame.width, size.height == frame.height { return frame }
        guard let source = Self.downsampleSource else {
            throw ELImageError.invalidState(node: "DetectorOutput", reason: "ELImage was built without Shaders/detector_downsample.fsh")
        }
        return try context.renderPass("detector_downsample", fragment: source, inputs: [frame],
                                      width: size.width, height: size.height, like: frame,
                                      uniforms: ["outputTexel": .vec2([1 / Float(size.width), 1 / Float(size.height)])])
    }

    /// Shaders/detector_downsample.fsh, embedded in ELImage; looked up once.
    private static let downsampleSource = ShaderLibrary.source(named: "detector_downsample.fsh")

    // MARK: End

    /// The stream ended: the worker analyses the image that waits, ends and finishes `metadata`.
    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        sink.requestFinish()
    }

    /// Analyses the image that waits, joins the worker and finishes `metadata`. Idempotent.
    public func close() async {
        sink.requestFinish()
        _ = await sink.outcome()  // a failure went to the context's error handler
        continuation.finish()
    }
}

/// Runs the detector on each analysis image a `DetectorOutput`'s sink reads back, on its worker thread.
private final class DetectionWriter: FrameWriter, Sendable {
    /// "DetectorOutput(faces)", in failures.
    let path: String
    private let detector: any MetadataDetector
    private let deliver: @Sendable (Metadata) -> Void
    /// The size of each sampled frame on its way to the worker, by the node's frame number.
    private let frameSizes = Locked([Int: (width: Int, height: Int)]())

    init(_ detector: any MetadataDetector, deliver: @escaping @Sendable (Metadata) -> Void) {
        self.detector = detector
        self.deliver = deliver
        path = "DetectorOutput(\(detector.name))"
    }

    func expect(frame number: Int, width: Int, height: Int) {
        frameSizes.withLock { $0[number] = (width, height) }
    }

    /// `time` is the node's frame number.
    func write(_ buffer: inout PixelBuffer, time: Int64, frame _: Int) throws -> FrameWriteVerdict {
        let frame = Int(time)
        let size = frameSizes.withLock { sizes in
            defer { sizes = sizes.filter { $0.key > frame } }  // and those of frames replaced before it
            return sizes[frame]
        }
        // Named by its number in its source's stream, which the read-back picture carries.
        let sourceFrame = buffer.sequenceNumber
        guard let size else {
            throw ELImageError.malformedMedia(file: path, frame: sourceFrame, reason: "the frame's size did not reach the detector")
        }
        let image = AnalysisImage(picture: buffer, frame: sourceFrame, frameWidth: size.width, frameHeight: size.height)
        do {
            deliver(image.metadata(try detector.detect(in: image), detector: detector.name))
        } catch {
            throw ELImageError.malformedMedia(file: path, frame: sourceFrame, reason: "the \(detector.name) detector failed: \(error)")
        }
        return .more
    }

    // `metadata` is finished by the node.
    func finish() throws {}
    func publish() throws {}
    func salvage(after error: ELImageError) {}
    func discard() {}
}

extension DetectorOutput: PlanDescribing {
    package var planSummary: String {
        let waiting = switch settings.waitsForDetector {
        case true?: "the render thread waits for each analysis"
        case false?: "the newest image wins"
        case nil: "a file's frames wait for each analysis, a camera's newest image wins"
        }
        return "samples frames, shrinks them on the GPU (1 pass), then " + sink.planSummary + "; " + waiting
    }
}
