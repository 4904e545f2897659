import ELImage
import Foundation

/// A source that feeds a still picture (a PNG or JPEG file) into the graph: once, or repeated
/// as a clip of `repeatCount` frames at `frameRate` (frame `n` is stamped `n / frameRate`).
///
/// ```swift
/// let title = try StillImageInput(path: "title.png", options: .init(repeatCount: 75, frameRate: 25))
/// title --> encoder                        // three seconds of the title
/// try await title.run(on: context)
/// ```
///
/// The file is decoded once, to RGBA (sRGB); each frame is uploaded with its own timestamp.
///
/// Orientation: a JPEG's EXIF Orientation tag (a phone's upright photo is stored sideways) turns
/// the picture upright on the way in, width and height trading places for 90° and 270°
/// (`sourceOrientation`; `Options.autorotate` turns it off).
public final class StillImageInput: ImageOutput, ClosableNode {
    public let outputs = OutputTargets()

    /// How many frames to make and how fast.
    public struct Options: Sendable {
        /// How many frames the picture becomes (1: delivered once).
        public var repeatCount: Int
        /// The rate of the frames' timestamps.
        public var frameRate: Y4MHeader.Ratio
        /// `.asFastAsPossible` delivers the frames one after another as the graph takes them;
        /// `.realTime` delivers each at its time.
        public var pacing: SourcePacing
        /// A further turn (rotation, mirroring) on the picture's way into the graph, after the
        /// picture's own orientation when `autorotate` applies it.
        public var orientation: Orientation
        /// Turns the picture upright as its EXIF Orientation tag asks (`sourceOrientation`). False
        /// delivers it as stored.
        public var autorotate: Bool

        public init(repeatCount: Int = 1, frameRate: Y4MHeader.Ratio = 25, pacing: SourcePacing = .asFastAsPossible,
                    orientation: Orientation = .up, autorotate: Bool = true) {
            self.orientation = orientation
            self.autorotate = autorotate
            self.repeatCount = repeatCount
            self.frameRate = frameRate
            self.pacing = pacing
        }
    }

    /// The file, or the name given with the image.
    public let path: String
    /// The decoded picture (RGBA), as stored (a 16-bit PNG's samples rounded to 8 bits).
    public let image: RGBAImage
    /// A 16-bit PNG's samples as they are (`.rgba64`), which go into the graph instead of `image`
    /// (worked on in half floats); nil for 8-bit pictures.
    public let deepPicture: PixelBuffer?
    /// Bits a sample of what goes into the graph: 16 for a 16-bit PNG, else 8.
    public var bitsPerSample: Int { deepPicture?.format.bitsPerSample ?? 8 }
    /// How the file says the picture is to be turned to be seen upright: a JPEG's EXIF
    /// Orientation; `.up` for PNG files and JPEGs without (or with damaged) Exif data.
    public let sourceOrientation: Orientation
    /// The options given at creation.
    public let options: Options
    private let runner = SourceRunner(name: "ELImage.still", policy: .backPressure(capacity: 2))

    /// The picture size as stored.
    public var size: (width: Int, height: Int) { (image.width, image.height) }
    /// The turn the picture gets on its way into the graph: `sourceOrientation` (with
    /// `autorotate`), then `options.orientation`.
    public var orientation: Orientation {
        .forInput(source: sourceOrientation, autorotate: options.autorotate, then: options.orientation)
    }
    /// The size of the frames delivered into the graph (`size` turned by `orientation`).
    public var outputSize: (width: Int, height: Int) { orientation.outputSize(width: image.width, height: image.height) }
    /// Counters of the current or last run.
    public var statistics: SourceStatistics { runner.statistics }

    /// Reads the PNG or JPEG file at `path` (told apart by their signatures, not by the name).
    /// - Throws: `ELImageError.io` when the file cannot be read; `ELImageError.malformedMedia`
    ///   when it is neither PNG nor JPEG, or is damaged; `ELImageError.invalidInput` for a
    ///   repeat count below 1 or a frame rate that is not positive.
    public convenience init(path: String, options: Options = Options()) throws {
        let image: RGBAImage
        var deep: PixelBuffer?
        var orientation = Orientation.up
        switch try Self.signature(of: path) {
        case let bytes where bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]):
            let picture = try PNGFile.readPicture(path)
            if picture.format == .rgba64 {
                deep = picture
                image = Self.rounded(picture)
            } else {
                image = RGBAImage(width: picture.width, height: picture.height, pixels: picture.data)
            }
        case let bytes where bytes.starts(with: [0xFF, 0xD8]):
            let data = try ImageFileData.read(path, kind: "JPEG", statedSize: JPEGFrameHeader.statedSize(in:))
            image = try JPEGFile.decode(data, name: path)
            orientation = JPEGFile.orientation(of: data)
        case let bytes:
            let start = bytes.map { String($0, radix: 16, uppercase: true) }.joined(separator: " ")
            throw ELImageError.malformedMedia(
                file: path, frame: nil,
                reason: "not a PNG or JPEG file (it starts with \(start.isEmpty ? "nothing: it is empty" : start)); give a PNG or JPEG image, or for a video a file named by its kind (.mp4, .mkv, .mov, ...)")
        }
        try self.init(image: image, deepPicture: deep, name: path, sourceOrientation: orientation, options: options)
    }

    /// A tightly packed `.rgba64` picture's samples rounded to 8 bits.
    private static func rounded(_ picture: PixelBuffer) -> RGBAImage {
        let pixels = stride(from: 0, to: picture.data.count - 1, by: 2).map { index -> UInt8 in
            let sample = UInt32(picture.data[index]) | UInt32(picture.data[index + 1]) << 8
            return UInt8((sample * 255 + 32767) / 65535)
        }
        return RGBAImage(width: picture.width, height: picture.height, pixels: pixels)
    }

    /// Uses a picture already in memory; `name` stands for it in errors, `sourceOrientation` is
    /// how it is to be turned to be seen upright (e.g. `JPEGFile.orientation(of:)` of its file).
    /// - Throws: `ELImageError.invalidInput` for an empty image, a repeat count below 1 or a
    ///   frame rate that is not positive.
    public convenience init(image: RGBAImage, name: String = "still image", sourceOrientation: Orientation = .up,
                            options: Options = Options()) throws {
        try self.init(image: image, deepPicture: nil, name: name, sourceOrientation: sourceOrientation, options: options)
    }

    private init(image: RGBAImage, deepPicture: PixelBuffer?, name: String, sourceOrientation: Orientation,
                 options: Options) throws {
        guard image.width > 0, image.height > 0, image.pixels.count >= image.width * image.height * 4 else {
            throw ELImageError.invalidInput(what: "\(name): a \(image.width)x\(image.height) image with \(image.pixels.count) bytes is unusable",
                                            hint: "give width * height * 4 bytes of RGBA")
        }
        guard options.repeatCount >= 1 else {
            throw ELImageError.invalidInput(what: "repeat count \(options.repeatCount) for \(name) makes no frames",
                                            hint: "give 1 to deliver the picture once, or more for a clip")
        }
        let rate = options.frameRate
        guard (1...Int(Int32.max)).contains(rate.numerator), (1...Int(Int32.max)).contains(rate.denominator) else {
            throw ELImageError.invalidInput(what: "frame rate \(rate) for \(name) is not usable",
                                            hint: "give two positive whole numbers, e.g. 25:1 or 30000:1001")
        }
        self.path = name
        self.image = image
        self.deepPicture = deepPicture
        self.sourceOrientation = sourceOrientation
        self.options = options
    }

    /// Feeds the frames into the graph, then sends end-of-stream; returns when the last frame went
    /// through. Cancelling the calling task stops it like `cancel()`.
    /// - Throws: `ELImageError.invalidState` when a run is already going on; errors from the
    ///   upload (a picture larger than the GPU's textures).
    public func run(on context: RenderContext) async throws {
        try await runner.run(StillImageProducer(image: image, deepPicture: deepPicture, options: options,
                                                orientation: orientation), for: self,
                             on: context, pacing: options.pacing, frameInterval: options.frameRate.frameInterval)
    }

    /// Stops the current run without waiting: no further frame is delivered, end-of-stream is sent
    /// and `run(on:)` returns. Safe from any thread. The framework's own stop; a user calls
    /// `close()` (from a callback: `Task { await still.close() }`).
    package func cancel() {
        runner.cancel()
    }

    /// Stops the current run and returns once it has ended: end-of-stream sent and
    /// the decoding thread joined. Called by the render context's `close()`; idempotent.
    public func close() async {
        await runner.close()
    }

    /// The first 8 bytes of the file.
    private static func signature(of path: String) throws -> [UInt8] {
        try ImageFileData.requireRegularFile(path, kind: "PNG or JPEG")
        guard let file = fopen(path, "rb") else {
            let code = errno
            throw ELImageError.io(file: path, operation: "open", errno: code,
                                  hint: code == ENOENT ? "check the path" : "check the path and its permissions")
        }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 8)
        let count = fread(&bytes, 1, bytes.count, file)
        guard ferror(file) == 0 else {
            let code = errno
            throw ELImageError.io(file: path, operation: "read", errno: code,
                                  hint: code == EISDIR ? "give the path of an image file, not a folder" : "check the file")
        }
        return Array(bytes.prefix(count))
    }
}

/// Makes a `StillImageInput`'s frames: the picture, `repeatCount` times, frame `n` stamped
/// `n / frameRate`.
private struct StillImageProducer: FrameProducer {
    let image: RGBAImage
    let deepPicture: PixelBuffer?
    let options: StillImageInput.Options
    let orientation: Orientation
    private var index = 0

    init(image: RGBAImage, deepPicture: PixelBuffer?, options: StillImageInput.Options, orientation: Orientation) {
        self.image = image
        self.deepPicture = deepPicture
        self.options = options
        self.orientation = orientation
    }

    mutating func next(_ control: ProducerControl) throws -> ProducedFrame {
        guard index < options.repeatCount else { return .endOfStream }
        var buffer = try deepPicture ?? PixelBuffer(format: .rgba, width: image.width, height: image.height,
                                                    data: image.pixels, colorSpace: .srgb)
        let rate = options.frameRate
        buffer.timestamp = MediaTime(frame: Int64(index), framesPerSecond: Int32(clamping: rate.numerator),
                                     Int32(clamping: rate.denominator))
        index += 1
        return .picture(buffer, orientation: orientation)
    }
}
