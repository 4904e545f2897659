import ELImage
import Foundation

/// Reads a headerless raw video file (`.yuv`, `.rgb`, ffmpeg's `-f rawvideo`) frame by frame.
///
/// The file holds nothing but frames, each the tightly packed planes of one image one after
/// another, so the size, pixel format and frame rate must be given. Frames are streamed: one
/// frame is in memory at a time.
///
///     let reader = try RawYUVReader(path: "clip.yuv", width: 1920, height: 1080, format: .i420,
///                                   frameRate: Y4MHeader.Ratio(30000, 1001))
///     while let frame = try reader.nextFrame() { ... }
public final class RawYUVReader {
    /// The file being read.
    public let path: String
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// The layout of each frame's planes.
    public let format: PixelFormat
    /// Frames per second, numerator:denominator; frame `n` is stamped `n / frameRate`.
    public let frameRate: Y4MHeader.Ratio
    /// Given to every frame. Defaults to `ColorSpace.defaultForVideo(height:)` (limited range).
    public var colorSpace: ColorSpace
    /// Given to every frame.
    public var chromaLocation: ChromaLocation
    /// Frames returned so far (the number of the next frame).
    public private(set) var framesRead = 0

    private let file: FrameFile
    private let frameBytes: Int
    private var failure: ELImageError?

    /// Opens `path`.
    /// - Throws: `ELImageError.invalidInput` for a size outside 1...`Y4MHeader.maximumDimension`
    ///   or a frame rate that is not positive; `ELImageError.malformedMedia` for a size beyond
    ///   `InputLimits.maximumPixels`; `ELImageError.io` when the file cannot be opened.
    public init(path: String, width: Int, height: Int, format: PixelFormat, frameRate: Y4MHeader.Ratio,
                colorSpace: ColorSpace? = nil, chromaLocation: ChromaLocation = .left) throws {
        let limit = Y4MHeader.maximumDimension
        guard (1...limit).contains(width), (1...limit).contains(height) else {
            throw ELImageError.invalidInput(what: "raw frame size \(width)x\(height) for \(path) is not usable",
                                            hint: "width and height must be from 1 to \(limit)")
        }
        try InputLimits.current.checkPicture(width: width, height: height, file: path, kind: "raw frame size")
        guard (1...Int(Int32.max)).contains(frameRate.numerator), (1...Int(Int32.max)).contains(frameRate.denominator) else {
            throw ELImageError.invalidInput(what: "frame rate \(frameRate) for \(path) is not usable",
                                            hint: "give two positive whole numbers, e.g. 25:1 or 30000:1001")
        }
        self.path = path
        self.width = width
        self.height = height
        self.format = format
        self.frameRate = frameRate
        self.colorSpace = colorSpace ?? .defaultForVideo(height: height)
        self.chromaLocation = chromaLocation
        self.frameBytes = format.byteCount(width: width, height: height)
        self.file = try FrameFile(readingFrom: path)
    }

    /// The next frame, or nil at the end of the file.
    /// - Throws: `ELImageError.malformedMedia` with the frame's number when the file ends inside
    ///   a frame (the frames before it were returned); `ELImageError.io` when reading fails.
    ///   Once it has thrown, it throws the same error again.
    public func nextFrame() throws -> PixelBuffer? {
        if let failure { throw failure }
        do {
            let index = framesRead
            switch try file.read(exactly: frameBytes, operation: "read frame \(index) of") {
            case .endOfFile:
                return nil
            case .short(let got):
                throw ELImageError.malformedMedia(
                    file: path, frame: index,
                    reason: "the file ends inside the frame: \(got) of its \(frameBytes) bytes are there (\(width)x\(height) \(format)); check the width, height and pixel format, or the file was cut short")
            case .complete(let bytes):
                let buffer = try PixelBuffer(
                    format: format, width: width, height: height, data: bytes,
                    timestamp: MediaTime(frame: Int64(index), framesPerSecond: Int32(clamping: frameRate.numerator),
                                         Int32(clamping: frameRate.denominator)),
                    colorSpace: colorSpace, chromaLocation: chromaLocation)
                framesRead += 1
                return buffer
            }
        } catch let error as ELImageError {
            failure = error
            file.close()
            throw error
        }
    }

    /// Releases the file; `nextFrame()` then returns nil. Also done when the reader is freed.
    public func close() {
        file.close()
    }

    /// Every frame of `path`, for short clips and tests (each frame stays in memory).
    public static func readAll(path: String, width: Int, height: Int, format: PixelFormat,
                               frameRate: Y4MHeader.Ratio) throws -> [PixelBuffer] {
        let reader = try RawYUVReader(path: path, width: width, height: height, format: format, frameRate: frameRate)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return frames
    }
}

// MARK: - Reading a frame file

/// A file read front to back through a buffered stdio `FILE`, with the errors of the frame
/// readers. Shared by `RawYUVReader` and `Y4MReader`.
final class FrameFile {
    let path: String
    /// Bytes consumed so far.
    private(set) var offset: Int64 = 0
    private var handle: UnsafeMutablePointer<FILE>?

    /// The outcome of reading a line.
    enum Line {
        /// The bytes before the newline (which is consumed).
        case complete([UInt8])
        /// The file ended; these bytes came before it (maybe none).
        case endOfFile([UInt8])
        /// More than `maxBytes` bytes before a newline; these are the first `maxBytes`.
        case tooLong([UInt8])
    }

    /// The outcome of reading a block of bytes.
    enum Block {
        case complete([UInt8])
        /// The file ended before the first byte.
        case endOfFile
        /// The file ended after this many bytes.
        case short(Int)
    }

    init(readingFrom path: String) throws {
        guard let handle = fopen(path, "rb") else {
            let code = errno
            throw ELImageError.io(file: path, operation: "open", errno: code,
                                  hint: code == ENOENT ? "check the path" : "check the path and its permissions")
        }
        var info = stat()
        if fstat(fileno(handle), &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            fclose(handle)
            throw ELImageError.io(file: path, operation: "read", errno: EISDIR, hint: "give the path of a file, not a folder")
        }
        self.path = path
        self.handle = handle
    }

    deinit { close() }

    func close() {
        if let handle { fclose(handle) }
        handle = nil
    }

    /// Reads up to and including the next newline, at most `maxBytes` bytes before it.
    func readLine(maxBytes: Int, operation: String) throws -> Line {
        guard let handle else { return .endOfFile([]) }
        var bytes: [UInt8] = []
        while true {
            let character = getc(handle)
            if character == EOF {
                try checkError(operation: operation)
                return .endOfFile(bytes)
            }
            offset += 1
            if character == 0x0A { return .complete(bytes) }
            if bytes.count >= maxBytes { return .tooLong(bytes) }
            bytes.append(UInt8(truncatingIfNeeded: character))
        }
    }

    /// Reads `count` bytes into a new array. When the file is a regular file too short for them,
    /// it says so without reading or allocating them.
    func read(exactly count: Int, operation: String) throws -> Block {
        guard let handle, count > 0 else { return .endOfFile }
        var info = stat()
        if fstat(fileno(handle), &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            let remaining = max(0, Int64(info.st_size) - offset)
            if remaining < Int64(count) {
                return remaining == 0 ? .endOfFile : .short(Int(remaining))
            }
        }
        var got = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            got = buffer.baseAddress.map { fread($0, 1, count, handle) } ?? 0
            initialized = got
        }
        offset += Int64(got)
        if got < count {
            try checkError(operation: operation)
            return got == 0 ? .endOfFile : .short(got)
        }
        return .complete(bytes)
    }

    private func checkError(operation: String) throws {
        guard let handle, ferror(handle) != 0 else { return }
        let code = errno
        throw ELImageError.io(file: path, operation: operation, errno: code,
                              hint: "the file or its device may be damaged or gone")
    }
}
