import ELImage
import Foundation

/// A sink for a side branch of the graph that runs a `MetadataDetector` (faces, codes) without
/// slowing the video: the AVCaptureMetadataOutput of ELImage.
///
/// On the render thread, each sampled frame is shrunk on the GPU to the analysis size, converted
/// to luma and fenced (two small draws, no wait). A worker thread with a shared GL context waits
/// for the fence, reads the luma image back and runs the detector. While it is busy, a newer
/// image replaces the waiting one (counted in `statistics.dropped`), so a slow detector costs the
/// main path nothing; `waitsForDetector` makes the render thread wait for each analysis instead
/// (file sources that want every sampled frame analysed, and overlays in step with the frames). Results arrive as `Metadata` tagged with the frame's number
/// and timestamp, through `metadata` and the handler, on the worker thread.
///
/// Close it (or its context) before the program ends: `close()` analyses what waits, joins the
/// worker and finishes `metadata`.
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
        /// added after it, e.g. an overlay; for files); false: the newest image wins (live sources).
        public var waitsForDetector = false

        public init(analysisSize: (width: Int, height: Int)? = nil, interval: Int = 1, maximumRate: Double? = nil,
                    waitsForDetector: Bool = false) {
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
        /// Sampled images replaced by a newer one before the worker took them.
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

    /// One sampled frame on its way to the worker.
    private struct Job: Sendable {
        let planes: PackedPlanes
        let fence: GLFence
        let frame: Int
        let frameWidth: Int
        let frameHeight: Int
    }

    private struct State {
        var statistics = Statistics()
        var lastSampledTime: MediaTime?
        var worker: JoinableThread?
        var context: RenderContext?
        var closing = false
        var failed = false
    }

    public let inputSlots = InputSlots(count: 1)
    public let detector: any MetadataDetector
    public let settings: Settings
    /// Every analysed frame's metadata, in order; finishes when the node closes. Keeps the newest
    /// 256 values for a slow reader.
    public let metadata: AsyncStream<Metadata>
    private let continuation: AsyncStream<Metadata>.Continuation
    private let handler: (@Sendable (Metadata) -> Void)?
    private let mailbox = HandoffQueue<Job>(capacity: 1)
    private let state = Locked(State())

    /// - Parameters:
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
        guard size.width >= 8, size.height >= 8 else {
            throw ELImageError.invalidInput(what: "analysis size \(size.width)x\(size.height)", hint: "use at least 8x8, e.g. 320x180")
        }
        self.detector = detector
        self.settings = settings
        self.handler = handler
        (metadata, continuation) = AsyncStream.makeStream(of: Metadata.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// The node's counters so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The luma image size for a `width`×`height` frame: inside the analysis size, aspect kept,
    /// width a multiple of 4 (whole texels of the packed readback), never larger than the frame.
    public static func analysisSize(forFrame width: Int, _ height: Int, fittingIn box: (width: Int, height: Int))
        -> (width: Int, height: Int) {
        let scale = min(1, Double(box.width) / Double(width), Double(box.height) / Double(height))
        let scaledWidth = max(4, Int((Double(width) * scale).rounded()) / 4 * 4)
        return (scaledWidth, max(1, Int((Double(height) * scale).rounded())))
    }

    // MARK: Render thread

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard frame.format == .rgba8 else {
            throw ELImageError.invalidInput(what: "DetectorOutput got a \(frame.format) frame",
                                            hint: "connect it after a node that outputs RGBA")
        }
        let ticket = state.withLock { state -> (number: Int, startWorker: Bool)? in
            let number = state.statistics.framesIn
            state.statistics.framesIn += 1
            guard !state.closing, !state.failed, number % settings.interval == 0 else { return nil }
            if let rate = settings.maximumRate, let last = state.lastSampledTime,
               (frame.timestamp.seconds - last.seconds) < 1 / rate - 1e-6 {
                return nil
            }
            state.lastSampledTime = frame.timestamp
            state.statistics.sampled += 1
            state.context = context
            return (number, state.worker == nil)
        }
        guard let ticket else { return }
        if ticket.startWorker { try startWorker(in: context) }
        let size = Self.analysisSize(forFrame: frame.width, frame.height,
                                     fittingIn: settings.analysisSize ?? detector.preferredAnalysisSize)
        let planes = try context.packPlanes(of: try shrink(frame, to: size, in: context), as: .gray8,
                                            colorSpace: frame.colorSpace)
        let job = Job(planes: planes, fence: try context.insertFence(), frame: ticket.number,
                      frameWidth: frame.width, frameHeight: frame.height)
        let waits = settings.waitsForDetector
        switch mailbox.push(job, whenFull: waits ? .wait : .replaceOldest, waitUntilHandled: waits) {
        case .queued: break
        case .replacedOlder: state.withLock { $0.statistics.dropped += 1 }
        case .closed, .refused: state.withLock { $0.statistics.sampled -= 1 }
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

    private func startWorker(in context: isolated RenderContext) throws {
        let thread = try context.makeWorker(name: "ELImage.detect") { [self] failure in
            if let failure { fail(failure) } else { work() }
        }
        state.withLock { $0.worker = thread }
        context.register(self, stage: .sink)
        do {
            try thread.start()
        } catch {
            fail(error)  // no worker: nothing is posted any more, so the render thread never waits for one
            throw error
        }
    }

    // MARK: Worker thread

    private func work() {
        while let job = mailbox.pop() {
            do {
                var waits = 0
                while !job.fence.wait(timeoutNanoseconds: 1_000_000_000) {
                    waits += 1
                    guard waits < 20 else {
                        throw ELImageError.invalidState(node: "DetectorOutput(\(detector.name))",
                                                        reason: "frame \(job.frame): the GPU did not shrink the frame within 20 s (fence timeout)")
                    }
                }
                var picture = try PixelBuffer(format: .gray8, width: job.planes.width, height: job.planes.height)
                try job.planes.read(into: &picture)
                let image = LumaImage(picture: picture, frame: job.frame, frameWidth: job.frameWidth,
                                          frameHeight: job.frameHeight)
                let found = image.metadata(try detector.detect(in: image), detector: detector.name)
                state.withLock { $0.statistics.analysed += 1 }
                handler?(found)
                continuation.yield(found)
                mailbox.markHandled()
            } catch {
                fail(error as? ELImageError
                    ?? .invalidState(node: "DetectorOutput(\(detector.name))", reason: "frame \(job.frame): \(error)"))
                return
            }
        }
    }

    /// Stops analysing after a failure and reports it; frames keep flowing past the node.
    private func fail(_ error: ELImageError) {
        let context = state.withLock { state -> RenderContext? in
            state.failed = true
            return state.context
        }
        if !mailbox.close(discarding: true).isEmpty { state.withLock { $0.statistics.dropped += 1 } }
        if let context { context.report(error, from: self) } else {
            FileHandle.standardError.write(Data("ELImage: DetectorOutput(\(detector.name)) failed: \(error)\n".utf8))
        }
    }

    // MARK: End

    /// Analyses the image that waits, joins the worker and finishes `metadata`. Idempotent.
    public func close() async {
        let worker = state.withLock { state -> JoinableThread? in
            state.closing = true
            return state.worker
        }
        mailbox.close()
        await worker?.join()
        continuation.finish()
    }
}
