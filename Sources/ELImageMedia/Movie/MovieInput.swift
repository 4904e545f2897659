import ELImage
import Foundation

/// A source that decodes the video of a movie file (MP4, MOV, Matroska/WebM, raw H.264, ...)
/// and pushes each frame into the graph as an RGBA frame with the file's timestamps and colours.
///
/// ```swift
/// let movie = try MovieInput(path: "clip.mp4")
/// movie --> Grayscale() --> sink
/// try await movie.run(on: context)        // returns after the last frame and end-of-stream
/// ```
///
/// Decoding runs on its own thread (libavcodec, software); each picture is uploaded and converted
/// on the render thread (`RenderContext.makeFrame(from:)`) with the frame's colour tags: untagged
/// video is BT.601 below 720 lines, BT.709 from 720 up, limited range.
///
/// Orientation: a file with a display matrix (a phone's portrait video, stored sideways) is
/// turned upright on the way in, width and height trading places for 90° and 270°, so that what
/// comes out needs no rotation tag (`sourceOrientation`; `Options.autorotate` turns it off).
///
/// Pacing (`Options.pacing`): `.asFastAsPossible` delivers every frame and the decoder waits
/// for the graph (transcoding); `.realTime` delivers each frame at its time and drops late ones,
/// counted in `statistics.dropped` (preview).
///
/// Sound: the frames carry none (audio does not go through the GPU), but a `VideoEncoder`
/// recording them into MP4 keeps the movie's first audio track by default, on the frames' clock
/// (`sound`, `RecordingSound.fromSource`); `audio: .off` leaves it out.
///
/// Damage: a frame the decoder could only conceal, or a packet it rejected, is reported to the
/// context's events as `.failed` (`ELImageError.malformedMedia` with the file and frame number) and the
/// run goes on. A file that cannot be read on (cut short, damaged container) ends the run: the
/// frames before the fault are delivered, then end-of-stream, then `run(on:)` throws (the same
/// failure, once, on the context's events). The end is a `.sourceEnded` event.
public final class MovieInput: ImageOutput, ClosableNode {
    public let outputs = OutputTargets()

    /// What to decode and how fast.
    public struct Options: Sendable {
        /// How frames are fed to the graph.
        public var pacing: SourcePacing
        /// Starts over at the end (at `start` / the range's first frame) until `cancel()`;
        /// timestamps keep increasing from one pass to the next.
        public var loop: Bool
        /// Where to begin: the first frame at or after this time of the stream's timeline.
        public var start: MediaTime?
        /// How much to deliver from where the run begins (`start`, else the first frame): a frame
        /// that begins at or after that time ends the pass (`ffmpeg -t`).
        public var duration: MediaTime?
        /// Which frames to deliver, by number (0 = the first frame of the file).
        public var frameRange: Range<Int>?
        /// Stops the run after this many frames, counted from where it begins (`start` or the
        /// range's first frame).
        public var maximumFrames: Int?
        /// Replaces the colour space the file's tags give (for wrongly tagged files).
        public var colorSpace: ColorSpace?
        /// Decoder threads; 0 lets libavcodec choose.
        public var decoderThreads: Int
        /// A further turn (rotation, mirroring) on the pictures' way into the graph, after the
        /// file's own orientation when `autorotate` applies it.
        public var orientation: Orientation
        /// Turns the pictures upright as the file's display matrix asks (`MovieInfo.orientation`:
        /// phones store portrait video sideways), as FFmpeg does. False delivers them as stored,
        /// like `ffmpeg -noautorotate`.
        public var autorotate: Bool

        public init(pacing: SourcePacing = .asFastAsPossible, loop: Bool = false, start: MediaTime? = nil,
                    frameRange: Range<Int>? = nil, colorSpace: ColorSpace? = nil, decoderThreads: Int = 0,
                    orientation: Orientation = .up, autorotate: Bool = true, duration: MediaTime? = nil,
                    maximumFrames: Int? = nil) {
            self.orientation = orientation
            self.duration = duration
            self.maximumFrames = maximumFrames
            self.autorotate = autorotate
            self.pacing = pacing
            self.loop = loop
            self.start = start
            self.frameRange = frameRange
            self.colorSpace = colorSpace
            self.decoderThreads = decoderThreads
        }
    }

    /// The file.
    public var path: String { info.path }
    /// What the file says about its video stream.
    public let info: MovieInfo
    /// The options given at creation.
    public let options: Options
    private let runner = SourceRunner(name: "ELImage.movie", policy: .backPressure(capacity: 2))

    /// How long the video lasts, when the file says.
    public var duration: MediaTime? { info.duration }
    /// The average frame rate, when the file says.
    public var frameRate: Y4MHeader.Ratio? { info.frameRate }
    /// The picture size as stored in the file.
    public var size: (width: Int, height: Int) { info.size }
    /// How the file says its pictures are to be turned to be seen upright (`.up` when it says
    /// nothing); applied when `options.autorotate` is on.
    public var sourceOrientation: Orientation { info.orientation }
    /// The turn each picture gets on its way into the graph: the file's own orientation (with
    /// `autorotate`), then `options.orientation`.
    public var orientation: Orientation {
        .forInput(source: info.orientation, autorotate: options.autorotate, then: options.orientation)
    }
    /// The size of the frames delivered into the graph (`size` turned by `orientation`).
    public var outputSize: (width: Int, height: Int) { orientation.outputSize(width: info.width, height: info.height) }
    /// The colour space frames are converted with (the override, or the stream's tags).
    public var colorSpace: ColorSpace { options.colorSpace ?? info.colorSpace }
    /// The codec's short name, e.g. "h264".
    public var codecName: String { info.codecName }
    /// Counters of the current or last run.
    public var statistics: SourceStatistics { runner.statistics }
    /// The movie's sound (its first audio track), nil when it has none. A recording of this
    /// input's frames keeps it by default (`RecordingSound.fromSource`), from the recording's
    /// first frame to its last; with `loop`, the first pass's.
    public var sound: MovieInfo.Sound? { info.sound }

    /// Opens `path` and reads its stream information (the file is opened again by each run).
    ///
    /// - Throws: `ELImageError.io` when the file cannot be opened; `ELImageError.malformedMedia`
    ///   when it is not a movie, has no video stream or an unsupported codec (see `MovieDecoder`);
    ///   `ELImageError.invalidInput` for an empty or negative frame range, a start outside the
    ///   video, or a duration that is not positive.
    public init(path: String, options: Options = Options()) throws {
        let decoder = try MovieDecoder(path: path, threadCount: 1)
        let info = decoder.info
        if let range = options.frameRange, range.isEmpty || range.lowerBound < 0 {
            throw ELImageError.invalidInput(what: "frame range \(range) for \(path) selects no frames",
                                            hint: "give a range of frame numbers from 0, e.g. 10..<20")
        }
        if let duration = options.duration, duration <= .zero {
            throw ELImageError.invalidInput(what: "duration \(MovieDecoder.format(seconds: duration.seconds)) for \(path) selects no frames",
                                            hint: "give a positive duration, or none to read to the end")
        }
        if let start = options.start {
            let end = info.duration.map { MediaTimeMath.sum(info.startTime, $0) }
            if start < .zero || end.map({ start >= $0 }) == true {
                let length = info.duration.map { " (the video lasts \(MovieDecoder.format(seconds: $0.seconds)))" } ?? ""
                throw ELImageError.invalidInput(
                    what: "start \(MovieDecoder.format(seconds: start.seconds)) is outside \(path)\(length)",
                    hint: "give a start within the video, or none to begin at the first frame")
            }
        }
        self.info = info
        self.options = options
    }

    /// Decodes the file and feeds its frames into the graph, then sends end-of-stream; returns when
    /// the last frame went through (with `loop`, only after `cancel()`).
    ///
    /// Cancelling the calling task stops the run like `cancel()`.
    /// - Throws: `ELImageError.malformedMedia` (with the frame number) when the file cannot be
    ///   read on; the frames before were delivered. `ELImageError.invalidState` when a run of this
    ///   input is already going on. Errors from the upload (e.g. a picture larger than the GPU's
    ///   textures).
    public func run(on context: RenderContext) async throws {
        try await runner.run(MovieProducer(info: info, options: options, orientation: orientation), for: self,
                             on: context, pacing: options.pacing,
                             frameInterval: info.frameRate?.frameInterval ?? .milliseconds(40))
    }

    /// Stops the current run without waiting: decoding stops, no further frame is delivered,
    /// end-of-stream is sent and `run(on:)` returns. Safe from any thread, including a sink on the
    /// render thread. The framework's own stop; a user calls `close()` (from a callback:
    /// `Task { await movie.close() }`).
    package func cancel() {
        runner.cancel()
    }

    /// Stops the current run and returns once it has ended: end-of-stream sent and
    /// the decoding thread joined. Called by the render context's `close()`; idempotent.
    public func close() async {
        await runner.close()
    }
}

extension MovieInput: SoundCarryingSource {
    func sound(fitting fit: SoundFit) -> (@Sendable () throws -> (any AudioTrackSource)?)? {
        guard info.sound != nil else { return nil }
        let path = info.path
        return { try MovieAudioReader.open(path: path, fitting: fit) }
    }
}
