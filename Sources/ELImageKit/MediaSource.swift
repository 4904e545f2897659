import ELImage
import ELImageCamera
import ELImageMedia
import Foundation
import Synchronization

/// Any input as the head of a graph: a camera (`/dev/videoN`), a video file, a Y4M file, a raw
/// YUV file or a still image, chosen by the path. Connect targets to `node`, then `run(on:)`.
///
/// ```swift
/// let source = try MediaSource.open("clip.mp4")
/// source.node --> Beauty() --> encoder
/// try await source.run(on: context)
/// ```
public final class MediaSource: Sendable {
    /// What the path turned out to be.
    public enum Kind: Sendable, Equatable {
        case camera(String), movie(String), y4m(String), rawYUV(String), image(String)
    }

    /// How to read the input.
    public struct Options: Sendable {
        /// Stop after this many frames (a camera captures 300 unless told; an image is shown once).
        public var frames: Int?
        /// Where a file begins (`ffmpeg -ss`): the first frame at or after this time from the
        /// file's start. Cameras and pictures have no timeline to begin within.
        public var start: Duration?
        /// How much to read (`ffmpeg -t`): the frames that begin before this time after the
        /// first; for a camera or a picture, the frames of that much time at the frame rate.
        /// With `frames` too, whichever ends first.
        public var duration: Duration?
        /// The rate of raw files and image clips (default 25), and the camera's wish.
        public var frameRate: Y4MHeader.Ratio?
        /// A turn (rotation, mirroring) of every frame, after the input's own orientation.
        public var orientation: Orientation
        /// Turns movies and JPEGs upright as they say (display matrix, EXIF Orientation) before
        /// `orientation`; false takes them as stored (`ffmpeg -noautorotate`).
        public var autorotate: Bool
        /// Replaces the colour space the input says (matrix and range of untagged or mistagged files).
        public var colorSpace: (@Sendable (ColorSpace) -> ColorSpace)?
        /// Size and format of raw YUV files, and the camera's wished size.
        public var size: (width: Int, height: Int)?
        public var rawFormat: PixelFormat?
        /// Paces a file at its frame rate, like a camera (`ffmpeg -re`), instead of as fast as
        /// the graph takes frames.
        public var realTime = false

        public init(frames: Int? = nil, frameRate: Y4MHeader.Ratio? = nil, orientation: Orientation = .up,
                    colorSpace: (@Sendable (ColorSpace) -> ColorSpace)? = nil,
                    size: (width: Int, height: Int)? = nil, rawFormat: PixelFormat? = nil, autorotate: Bool = true) {
            self.frames = frames
            self.autorotate = autorotate
            self.frameRate = frameRate
            self.orientation = orientation
            self.colorSpace = colorSpace
            self.size = size
            self.rawFormat = rawFormat
        }
    }

    public let kind: Kind
    /// The head of the graph.
    public let node: ImageOutput
    /// How many frames will come, when known.
    public let expectedFrames: Int?
    /// The input's own frame rate, when it has one: a Y4M header's, a movie's (FFmpeg's guess,
    /// see `MovieInfo.guessedFrameRate`), the rate given for raw files, image clips and cameras.
    public let frameRate: Y4MHeader.Ratio?
    /// Bits a sample of the input's pictures: 8, or 10 and more for inputs worked on in half floats
    /// (10-bit video, 16-bit PNG), which a recording keeps at 10 bits unless told otherwise.
    public let bitsPerSample: Int
    /// The source's counters of the current or last run: frames produced, delivered, and dropped
    /// with their reasons (`produced == delivered + dropped` once the run has ended).
    public var statistics: SourceStatistics { statisticsReader() }
    private let statisticsReader: @Sendable () -> SourceStatistics
    private let runner: @Sendable (RenderContext) async throws -> Void
    private let stopper: @Sendable () -> Void
    private let closer: @Sendable () async -> Void

    private init(kind: Kind, node: ImageOutput, expectedFrames: Int?, frameRate: Y4MHeader.Ratio?, bitsPerSample: Int = 8,
                 statistics: @escaping @Sendable () -> SourceStatistics,
                 run: @escaping @Sendable (RenderContext) async throws -> Void, cancel: @escaping @Sendable () -> Void,
                 close: @escaping @Sendable () async -> Void) {
        self.statisticsReader = statistics
        self.kind = kind
        self.node = node
        self.expectedFrames = expectedFrames
        self.frameRate = frameRate
        self.bitsPerSample = bitsPerSample
        self.runner = run
        self.stopper = cancel
        self.closer = close
    }

    /// Feeds every frame into the graph, then end-of-stream; returns when the input has ended
    /// (a camera's end is its `.sourceEnded` event: waited for, never polled). Every failure is a
    /// `.failed` event on the context's stream; one that ends the input is also thrown.
    public func run(on context: RenderContext) async throws { try await runner(context) }

    /// Stops reading the input without waiting (from any thread: a frame callback, a signal
    /// handler): end-of-stream follows, and `run(on:)` returns. The tool's own stop; a user calls
    /// `close()`.
    package func cancel() { stopper() }

    /// Stops reading the input and returns once its threads are joined (`run(on:)` returns too).
    /// Idempotent; from a callback: `Task { await source.close() }`.
    public func close() async {
        stopper()
        await closer()
    }

    /// Opens `path`; with no path, the first camera when one exists, else `fallback` (when given).
    /// Nothing is bound to a render context until `run(on:)`.
    public static func open(_ path: String?, fallback: String? = nil, options: Options = Options()) throws -> MediaSource {
        guard let chosen = path ?? CameraDevice.list().devices.first?.path ?? fallback else {
            throw ELImageError.invalidInput(what: "no input: no path was given and no camera was found",
                                            hint: "give a file (e.g. clip.mp4) or a camera (/dev/video0), or a fallback path")
        }
        if options.start != nil, !hasTimeline(chosen) {
            throw ELImageError.invalidInput(what: "a start time for \(chosen), which has no timeline to begin within",
                                            hint: "a start is for movie, Y4M and raw files; give a duration alone for a camera or a picture")
        }
        if chosen.hasPrefix("/dev/video") { return camera(chosen, options) }
        guard FileManager.default.fileExists(atPath: chosen) else {
            throw ELImageError.io(file: chosen, operation: "open", errno: ENOENT,
                                  hint: "check the path (a relative one starts from \(FileManager.default.currentDirectoryPath))")
        }
        let rate = options.frameRate ?? 25
        switch URL(fileURLWithPath: chosen).pathExtension.lowercased() {
        case "y4m":
            return file(.y4m(chosen), try YUVFileInput(y4m: chosen, options: yuvOptions(options)))
        case "yuv", "raw":
            guard let size = options.size, let format = options.rawFormat else {
                throw ELImageError.invalidInput(what: "raw input \(chosen) has no size and pixel format",
                                                hint: "give the frame size and pixel format of the file")
            }
            return file(.rawYUV(chosen), try YUVFileInput(raw: chosen, width: size.width, height: size.height, format: format,
                                                          frameRate: rate, options: yuvOptions(options)))
        case "png", "jpg", "jpeg":
            let count = framesLasting(options.duration, at: rate).map { min($0, options.frames ?? .max) } ?? options.frames ?? 1
            let still = try StillImageInput(path: chosen, options: .init(
                repeatCount: count, frameRate: rate, orientation: options.orientation,
                autorotate: options.autorotate))
            return MediaSource(kind: .image(chosen), node: still, expectedFrames: count, frameRate: rate,
                               bitsPerSample: still.bitsPerSample, statistics: { still.statistics },
                               run: { try await still.run(on: $0) }, cancel: { still.cancel() },
                               close: { await still.close() })
        default:
            // The file's own colour space derives an override, and its start time the start: the file
            // is opened for them first only when one is asked for.
            let info = options.colorSpace != nil || options.start != nil ? try MovieInput(path: chosen).info : nil
            let colorSpace = options.colorSpace.flatMap { override in info.map { override($0.colorSpace) } }
            // A start counts from the file's start, which its first timestamp may not be (as in ffmpeg).
            let start = options.start.flatMap { start in
                info.map { MediaTime(microseconds: Self.microseconds($0.startTime.seconds) + Self.microseconds(start)) }
            }
            let movie = try MovieInput(path: chosen, options: .init(
                pacing: options.realTime ? .realTime : .asFastAsPossible, start: start,
                colorSpace: colorSpace, orientation: options.orientation, autorotate: options.autorotate,
                duration: options.duration.map { MediaTime(microseconds: Self.microseconds($0)) }, maximumFrames: options.frames))
            let timed = framesLasting(options.duration, at: movie.info.guessedFrameRate ?? movie.info.frameRate ?? 25)
            let expected = options.start == nil ? movie.info.frameCount.map { min($0, options.frames ?? .max, timed ?? .max) }
                : (timed ?? options.frames).map { min($0, options.frames ?? .max) }
            return MediaSource(kind: .movie(chosen), node: movie, expectedFrames: expected,
                               frameRate: movie.info.guessedFrameRate ?? movie.info.frameRate,
                               bitsPerSample: movie.info.bitsPerSample, statistics: { movie.statistics },
                               run: { try await movie.run(on: $0) }, cancel: { movie.cancel() },
                               close: { await movie.close() })
        }
    }

    /// Whether `path` has a timeline a start time can begin within: a movie, Y4M or raw file, not a
    /// camera or a picture.
    public static func hasTimeline(_ path: String) -> Bool {
        !path.hasPrefix("/dev/video") && !["png", "jpg", "jpeg"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    /// A camera captured until `options.frames` frames went through (300 unless told), or it stops.
    private static func camera(_ path: String, _ options: Options) -> MediaSource {
        var settings = CaptureSettings(.hd720, framesPerSecond: options.frameRate.map {
            Double($0.numerator) / Double($0.denominator) })
        if let size = options.size { (settings.width, settings.height) = size }
        settings.orientation = options.orientation
        let camera = Camera(device: path, settings: settings)
        let wanted = framesLasting(options.duration, at: options.frameRate ?? 30).map { min($0, options.frames ?? .max) }
            ?? options.frames ?? 300
        // Weak: the camera holds its targets.
        camera.addTarget(FrameCounter { [weak camera] count in if count == wanted { camera?.cancel() } })
        let cancelled = Atomic<Bool>(false)
        // The rate the capture mode is chosen for (30 unless told): constant-rate outputs use it.
        let rate = options.frameRate ?? 30
        return MediaSource(kind: .camera(path), node: camera, expectedFrames: wanted, frameRate: rate,
                           statistics: { camera.statistics }, run: { context in
            // The context's events, subscribed before the start, so that the camera's end
            // cannot be missed; it comes after `wanted` frames, `cancel()`, a failure or an
            // unplugged device.
            let events = context.events
            try camera.start(on: context)
            if cancelled.load(ordering: .acquiring) { camera.cancel() }
            await events.end(of: camera)
            await camera.close()
        }, cancel: {
            cancelled.store(true, ordering: .releasing)
            camera.cancel()
        }, close: {
            cancelled.store(true, ordering: .releasing)
            await camera.close()
        })
    }

    /// A Y4M or raw YUV file.
    private static func file(_ kind: Kind, _ input: YUVFileInput) -> MediaSource {
        MediaSource(kind: kind, node: input, expectedFrames: nil, frameRate: input.frameRate,
                    bitsPerSample: input.pixelFormat.bitsPerSample, statistics: { input.statistics },
                    run: { try await input.run(on: $0) }, cancel: { input.cancel() },
                    close: { await input.close() })
    }

    private static func yuvOptions(_ options: Options) -> YUVFileInput.Options {
        .init(pacing: options.realTime ? .realTime : .asFastAsPossible, frameLimit: options.frames,
              orientation: options.orientation, colorSpace: options.colorSpace,
              start: options.start.map { MediaTime(microseconds: microseconds($0)) },
              duration: options.duration.map { MediaTime(microseconds: microseconds($0)) })
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }

    private static func microseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1_000_000).rounded(.down)) }

    /// How many frames at `rate` last `duration` (at least one); nil without a duration.
    private static func framesLasting(_ duration: Duration?, at rate: Y4MHeader.Ratio) -> Int? {
        duration.map { max(1, Int(($0.timeInterval * Double(rate.numerator) / Double(max(1, rate.denominator))).rounded(.up))) }
    }
}
