import ELImage
import Foundation

/// A sink that writes the frames it receives to a file, read back and written on a worker thread
/// (`ReadbackSink`): a YUV4MPEG2 file (`FileOutput.y4m`, the lossless hand-over to other tools:
/// `ffmpeg -i out.y4m ...`), raw RGBA (`FileOutput.rawRGBA`) or numbered PNG/JPEG files
/// (`FileOutput.imageSequence`).
///
/// ```swift
/// let y4m = try FileOutput.y4m(path: "out.y4m", frameRate: 25)
/// movie --> Grayscale() --> y4m
/// try await movie.run(on: context)
/// try await y4m.finish()
/// ```
///
/// The render thread only queues the converted planes; the queue waits when full (`.wait`) or
/// drops the frame and counts it (`.drop`). The file is written under a temporary name and put in
/// place when the sink ends with frames in it: `finish()` (or end-of-stream) writes what is queued
/// first, `close()` lets it go. A failure (a full disk) is a `.failed` event on the render
/// context's stream and is thrown by `finish()`; the frames written before stay in the file.
public final class FileOutput: ReadbackNode, FinishableNode, Sendable {
    public let inputSlots = InputSlots(count: 1)
    package let readback: ReadbackSink

    private init(_ configuration: ReadbackSink.Configuration, picturesOnly: Bool,
                 open: @escaping @Sendable (PixelBuffer, (any ImageOutput)?) throws -> any FrameWriter,
                 unused: @escaping @Sendable () -> Void) {
        var configuration = configuration
        configuration.picturesOnly = picturesOnly
        readback = ReadbackSink(configuration, openFromSource: open, firstSource: { FrameOrigin.current?.source }, unused: unused)
    }

    /// A YUV4MPEG2 (`.y4m`) file. Its header carries the chroma siting (`C420mpeg2` for left,
    /// `C420jpeg` for centred) and `XCOLORRANGE=LIMITED|FULL`; Y4M has no timestamps: frames are
    /// written in order and a reader times them by the header's frame rate. The header is written
    /// with the first frame, whose size the file takes (without `frameRate`, with the second
    /// frame, or at the end for a file of one frame).
    ///
    /// - Parameters:
    ///   - path: the file to write.
    ///   - frameRate: the header's `F` field; `nil` (default): the input's, from the interval
    ///     between its first two frames' timestamps (1001/24000 s gives `F24000:1001`), 25 for a
    ///     single frame.
    ///   - format: `.i420` (default), `.i422`, `.i444`, `.gray8` or `.i420p10` (`C420p10`, 10 bits).
    ///   - colorSpace: the matrix and range to convert with; `nil`: each frame's own.
    ///   - chromaLocation: the siting of subsampled chroma (4:2:0: `.left` → `C420mpeg2`,
    ///     `.center` → `C420jpeg`, `.topLeft` → `C420paldv`); `nil` (default): the first frame's
    ///     source's (`TextureFrame.chromaLocation`: a Y4M or movie input's own, `.left` for RGB).
    ///   - chromaDownsampling: the chroma filter; `.matched` (default) writes a Y'CbCr source
    ///     sited the same back with its chroma intact, `.average` costs fewer texture reads.
    ///   - queueCapacity: frames waiting for the writer thread before `whenQueueFull` applies.
    ///   - whenQueueFull: `.wait` (default; nothing is lost) or `.drop` (counted in `dropped`).
    /// - Throws: `ELImageError.invalidInput` for a format Y4M cannot hold or a bad frame rate;
    ///   `ELImageError.io` when the file cannot be created (checked now, without touching a file
    ///   already at `path`).
    public static func y4m(path: String, frameRate: Y4MHeader.Ratio? = nil, format: PixelFormat = .i420,
                           colorSpace: ColorSpace? = nil, chromaLocation: ChromaLocation? = nil,
                           chromaDownsampling: ChromaDownsampling = .matched, queueCapacity: Int = 4,
                           whenQueueFull: EncoderSettings.QueueFullPolicy = .wait) throws -> FileOutput {
        _ = try Y4MHeader(width: 2, height: 2, format: format, frameRate: frameRate ?? Y4MFrameRateGuess.fallback,
                          chromaLocation: chromaLocation ?? .left)
        if format == .i420p10, let chromaLocation, chromaLocation != .left {
            throw ELImageError.invalidInput(what: "a C420p10 Y4M file cannot say its chroma is sited \(chromaLocation) (its chroma is sited left)",
                                            hint: "leave chromaLocation nil, or pass .left")
        }
        // C420p10 has no siting of its own: its chroma is co-sited left, as H.264 and HEVC default.
        let chromaLocation = format == .i420p10 ? .left : chromaLocation
        let probe = try POSIXFileWriter(path: path)
        try probe.close()
        probe.remove()
        let configuration = ReadbackSink.Configuration(
            path: path, threadName: "y4m", format: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
            chromaDownsampling: chromaDownsampling, capacity: queueCapacity, whenQueueFull: whenQueueFull)
        return FileOutput(configuration, picturesOnly: false, open: { picture, _ in
            Y4MFrameWriter(frameRate: frameRate) { rate in
                let header = try Y4MHeader(width: picture.width, height: picture.height, format: format, frameRate: rate,
                                           colorRange: picture.colorSpace.range, chromaLocation: picture.chromaLocation)
                return try Y4MWriter(path: path, header: header)
            }
        }, unused: {})
    }

    /// A video file through one of FFmpeg's encoders (`VideoCodec`): VP9 or AV1 in WebM, H.264,
    /// VP9 or AV1 in Matroska, an animated GIF or WebP. The container comes from the path's
    /// extension (`.webm`, `.mkv`, `.gif`, `.webp`), the codec from `codec` or the container's
    /// default. Frames keep their own times; the file is written under a temporary name and put in
    /// place when the sink finishes with frames in it.
    ///
    /// **Sound.** WebM and Matroska keep the sound of the source whose frame comes first (a
    /// movie's audio track), on the frames' clock from that frame and cut where the video ends:
    /// copied when the container holds its codec, else encoded (to Opus for WebM, AAC for
    /// Matroska). GIF and WebP hold none.
    ///
    /// ```swift
    /// let webm = try FileOutput.encoded(path: "clip.webm")        // VP9
    /// movie --> Beauty() --> webm
    /// ```
    /// - Parameters:
    ///   - path: the file to write; its extension chooses the container.
    ///   - codec: the codec (`VideoCodec.Container.codecs`); nil: the container's default.
    ///   - quality: the codec's constant quality (`VideoCodec.qualityRange`), its default when nil.
    ///   - frameRate: the rate the encoder's rate control plans for (the frames keep their times).
    ///   - colorSpace: the matrix and range to convert with; `nil`: each frame's own.
    ///   - queueCapacity: frames waiting for the writer thread before `whenQueueFull` applies.
    ///   - whenQueueFull: `.wait` (default; nothing is lost) or `.drop` (counted in `dropped`).
    ///   - audio: the sound kept beside the frames: the source's by default, `.off` for none, or
    ///     a track of your own (a microphone: `PulseAudioCapture` with `AudioCodec.opus` for
    ///     WebM) whose codec the container holds.
    /// - Throws: `ELImageError.invalidInput` for an extension that is none of those, a codec the
    ///   container cannot hold, a quality out of range, a codec this FFmpeg lacks, or a sound
    ///   track the container cannot hold;
    ///   `ELImageError.io` when the file cannot be created (checked now, without touching a file
    ///   already at `path`).
    public static func encoded(path: String, codec: VideoCodec? = nil, quality: Double? = nil, frameRate: Y4MHeader.Ratio = 25,
                               colorSpace: ColorSpace? = nil, queueCapacity: Int = 4,
                               whenQueueFull: EncoderSettings.QueueFullPolicy = .wait,
                               audio: RecordingSound = .fromSource) throws -> FileOutput {
        let name = URL(fileURLWithPath: path).pathExtension
        guard let container = VideoCodec.Container(extension: name) else {
            throw ELImageError.invalidInput(what: "\(path): FileOutput.encoded writes .webm, .mkv, .gif and .webp files",
                                            hint: "name the file with one of those extensions (H.264 MP4: VideoEncoder)")
        }
        let codec = codec ?? container.defaultCodec
        guard container.codecs.contains(codec) else {
            throw ELImageError.invalidInput(what: "\(path): a .\(name) file cannot hold \(codec)",
                                            hint: "give one of \(container.codecs.map(\.rawValue).joined(separator: ", "))")
        }
        let quality = quality ?? codec.defaultQuality
        guard codec.qualityRange.contains(quality) else {
            throw ELImageError.invalidInput(what: "quality \(quality) for \(codec)",
                                            hint: "give \(codec.qualityRange.lowerBound)...\(codec.qualityRange.upperBound)")
        }
        guard codec.encoder != nil else {
            throw ELImageError.invalidInput(what: "this FFmpeg has no \(codec) encoder (\(codec.encoderNames.joined(separator: " or ")))",
                                            hint: "install an FFmpeg built with it, or choose another codec")
        }
        let fit = SoundFit.file(container)
        if case .track(let track) = audio {
            guard let fit else {
                throw ELImageError.invalidInput(what: "\(path): a .\(name) file holds no sound",
                                                hint: "record without sound (audio: .off), or into .webm, .mkv or .mp4")
            }
            guard fit.copies(track.format) else {
                throw ELImageError.invalidInput(what: "\(path): a .\(name) file cannot hold \(track.format.codecName) sound",
                                                hint: "give a track of a codec it holds (\(fit.encodesTo.rawValue)), or record without sound")
            }
        }
        let probe = try POSIXFileWriter(path: path)
        try probe.close()
        probe.remove()
        let configuration = ReadbackSink.Configuration(
            path: path, threadName: codec.rawValue, format: .i420, colorSpace: colorSpace, chromaLocation: nil,
            chromaDownsampling: .matched, capacity: queueCapacity, whenQueueFull: whenQueueFull)
        return FileOutput(configuration, picturesOnly: false, open: { picture, source in
            let sound: (any AudioTrackSource)? = switch audio {
            case .off: nil
            case .track(let track): track
            case .fromSource: try fit.flatMap { (source as? any SoundCarryingSource)?.sound(fitting: $0) }?()
            }
            return try CodecFileWriter(path: path, container: container, codec: codec, quality: quality, width: picture.width,
                                       height: picture.height, frameRate: frameRate, colorSpace: picture.colorSpace,
                                       chromaLocation: picture.chromaLocation, audio: sound)
        }, unused: {
            if case .track(let track) = audio { track.recordingEnded() }
        })
    }

    /// Raw RGBA: `width * 4` bytes a row, top row first, frames one after another, nothing else
    /// (`ffmpeg -f rawvideo -pix_fmt rgba -s WxH -i file` reads it). `PATH.partial` is created
    /// now and renamed onto `path` when the sink finishes with at least one frame.
    /// - Throws: `ELImageError.io` when the file cannot be created.
    public static func rawRGBA(path: String, queueCapacity: Int = 4,
                               whenQueueFull: EncoderSettings.QueueFullPolicy = .wait) throws -> FileOutput {
        rawRGBA(writer: try POSIXFileWriter(path: path), queueCapacity: queueCapacity, whenQueueFull: whenQueueFull)
    }

    /// Raw RGBA written through `writer` (yours, or one that fails on purpose in a test).
    public static func rawRGBA(writer: any MediaFileWriter, queueCapacity: Int = 4,
                               whenQueueFull: EncoderSettings.QueueFullPolicy = .wait) -> FileOutput {
        let configuration = ReadbackSink.Configuration(
            path: writer.path, threadName: "rgba-file", format: .rgba, chromaLocation: .left,
            capacity: queueCapacity, whenQueueFull: whenQueueFull)
        return FileOutput(configuration, picturesOnly: true, open: { _, _ in RawFrameWriter(writer) }, unused: {
            try? writer.close()
            writer.remove()
        })
    }

    /// A numbered image sequence: each frame (RGBA) becomes its own PNG or JPEG file, named by
    /// `pattern` with the frame's index from 0 (`out_%05d.png` → `out_00000.png`, ...); a
    /// pattern without `%` names one file, which takes the first frame (the sink then finishes).
    /// Each file is written under a temporary name and renamed into place when complete; after a
    /// failure the files written before stay.
    /// - Throws: `ELImageError.invalidInput` for a JPEG quality outside 1...100, or a pattern with
    ///   a `%` conversion other than one `%d`, `%4d` or `%04d` (`%%` is a percent sign);
    ///   `ELImageError.io` when the first file cannot be created (checked now, without touching a
    ///   file already there).
    public static func imageSequence(pattern: String, format: ImageSequenceFormat = .png, queueCapacity: Int = 4,
                                     whenQueueFull: EncoderSettings.QueueFullPolicy = .wait) throws -> FileOutput {
        if case .jpeg(let quality) = format, !(1...100).contains(quality) {
            throw ELImageError.invalidInput(what: "JPEG quality \(quality) is out of range",
                                            hint: "give a quality from 1 to 100 (90 is a good default)")
        }
        let name = try NumberedFileName(pattern)
        let probe = try POSIXFileWriter(path: name.path(index: 0))
        try probe.close()
        probe.remove()
        let configuration = ReadbackSink.Configuration(
            path: pattern, threadName: "image-sequence", format: format == .png16 ? .rgba64 : .rgba, chromaLocation: .left,
            capacity: queueCapacity, whenQueueFull: whenQueueFull)
        return FileOutput(configuration, picturesOnly: true, open: { _, _ in
            ImageSequenceWriter(pattern: name, format: format)
        }, unused: {})
    }

    /// The safety net for an output released without `finish()` or `close()`: the worker writes
    /// what is queued and finishes the file in the background (never waited for here).
    deinit {
        readback.requestFinish()
    }

    /// The file.
    public var path: String { readback.path }
    /// Frames written to the file so far.
    public var framesWritten: Int { readback.written }
    /// Frames dropped because the queue was full (`.drop` policy only) or after a failure.
    public var dropped: Int { readback.dropped }
}

/// Writes Y4M frames through `Y4MWriter` (staged; put in place by its `close()`). Without a
/// frame rate, the first frame waits for the second (or the end): their timestamps give the
/// header's rate (`Y4MFrameRateGuess`).
private final class Y4MFrameWriter: FrameWriter {
    private let frameRate: Y4MHeader.Ratio?
    private let open: (Y4MHeader.Ratio) throws -> Y4MWriter
    private var writer: Y4MWriter?
    /// The first frame, while the rate is not known yet.
    private var waiting: PixelBuffer?

    init(frameRate: Y4MHeader.Ratio?, open: @escaping (Y4MHeader.Ratio) throws -> Y4MWriter) {
        self.frameRate = frameRate
        self.open = open
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        if let writer {
            try writer.write(buffer)
        } else if let frameRate {
            let writer = try open(frameRate)
            self.writer = writer
            try writer.write(buffer)
        } else if let first = waiting {
            let writer = try open(Y4MFrameRateGuess.rate(from: first.timestamp, to: buffer.timestamp))
            self.writer = writer
            waiting = nil
            try writer.write(first)
            try writer.write(buffer)
        } else {
            // Kept by value: the sink reads the next frame into its own buffer (copy on write).
            waiting = buffer
        }
        return .more
    }

    /// Opens the file with the frame that waits for its rate (a file of one frame).
    private func writeWaiting() throws -> Y4MWriter? {
        guard let first = waiting else { return writer }
        waiting = nil
        let writer = try open(frameRate ?? Y4MFrameRateGuess.fallback)
        self.writer = writer
        try writer.write(first)
        return writer
    }

    func finish() throws { try writeWaiting()?.close() }
    func publish() throws {}
    func salvage(after error: ELImageError) {
        guard let writer = try? writeWaiting() else { return }
        if writer.framesWritten > 0 { try? writer.close() } else { writer.discard() }
    }
    func discard() {
        waiting = nil
        writer?.discard()
    }
}

/// Writes each frame's bytes (tightly packed RGBA) through a `MediaFileWriter`.
private final class RawFrameWriter: FrameWriter {
    let writer: any MediaFileWriter
    private var frames = 0
    init(_ writer: any MediaFileWriter) { self.writer = writer }
    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        try buffer.data.withUnsafeBytes { try writer.write($0) }
        frames += 1
        return .more
    }
    func finish() throws {
        try writer.synchronize()
        try writer.close()
    }
    func publish() throws { try writer.publish() }
    func salvage(after error: ELImageError) {
        try? writer.close()
        if frames > 0 { try? writer.publish() } else { writer.remove() }
    }
    func discard() {
        try? writer.close()
        writer.remove()
    }
}

extension FileOutput: FrameAccounting {
    /// One hop: the frames queued for the file, and those written (its own drops: `.drop` with a
    /// full queue, or frames still queued when a failure ended it).
    public var frameHops: [FrameHop] { [readback.frameHop(named: readback.path)] }
}
