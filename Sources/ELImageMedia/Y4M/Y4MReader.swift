import ELImage
import Foundation

/// Reads a YUV4MPEG2 (`.y4m`) file frame by frame.
///
/// The file is a header line (see `Y4MHeader`), then for each frame a line `FRAME` (with
/// optional parameters, which are ignored) and exactly `header.frameByteCount` bytes of tightly
/// packed planes. Frames are streamed: one frame is in memory at a time.
///
///     let reader = try Y4MReader(path: "clip.y4m")
///     while let frame = try reader.nextFrame() { ... }
public final class Y4MReader {
    /// The longest header or `FRAME` line accepted, in bytes.
    public static let maximumLineLength = 4096

    /// The file being read.
    public let path: String
    /// The stream header.
    public let header: Y4MHeader
    /// Given to every frame: BT.601 below 720 lines, BT.709 from 720 up
    /// (`ColorSpace.defaultForVideo(height:)`), with the range of `XCOLORRANGE` (limited when
    /// absent). Set it when you know better.
    public var colorSpace: ColorSpace
    /// Given to every frame; from the header's `C` field.
    public var chromaLocation: ChromaLocation
    /// Frames returned so far (the number of the next frame).
    public private(set) var framesRead = 0

    private let file: FrameFile
    private var failure: ELImageError?

    /// Opens `path` and reads its header.
    /// - Throws: `ELImageError.io` when the file cannot be opened or read;
    ///   `ELImageError.malformedMedia(frame: nil)` when the header is missing, too long or wrong.
    public init(path: String) throws {
        let file = try FrameFile(readingFrom: path)
        let headerLine: [UInt8]
        switch try file.readLine(maxBytes: Self.maximumLineLength, operation: "read the header of") {
        case .complete(let bytes):
            try Self.checkMagic(bytes, path: path)
            headerLine = bytes
        case .endOfFile(let bytes):
            guard !bytes.isEmpty else {
                throw ELImageError.malformedMedia(file: path, frame: nil,
                                                  reason: "the file is empty; a Y4M file starts with a '\(Y4MHeader.magic) W... H...' header line")
            }
            try Self.checkMagic(bytes, path: path)
            throw ELImageError.malformedMedia(
                file: path, frame: nil,
                reason: "the file ends inside its header line after \(bytes.count) bytes (no newline): '\(Self.quoted(bytes))'; the file is cut short")
        case .tooLong(let bytes):
            try Self.checkMagic(bytes, path: path)
            throw ELImageError.malformedMedia(
                file: path, frame: nil,
                reason: "the header line is longer than \(Self.maximumLineLength) bytes (no newline found); the file is damaged")
        }
        let header = try Y4MHeader(parsing: String(decoding: headerLine, as: UTF8.self), file: path)
        try InputLimits.current.checkPicture(width: header.width, height: header.height, file: path, kind: "Y4M header")
        var colorSpace = ColorSpace.defaultForVideo(height: header.height)
        colorSpace.range = header.colorRange ?? .limited
        self.path = path
        self.header = header
        self.colorSpace = colorSpace
        self.chromaLocation = header.chromaLocation
        self.file = file
    }

    /// The next frame, or nil at the end of the file.
    /// - Throws: `ELImageError.malformedMedia` with the frame's number when its `FRAME` line is
    ///   missing, garbled or too long, or the file ends inside it (the frames before it were
    ///   returned); `ELImageError.io` when reading fails. Once it has thrown, it throws the same
    ///   error again.
    public func nextFrame() throws -> PixelBuffer? {
        if let failure { throw failure }
        do {
            return try readFrame()
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
    public static func readAll(path: String) throws -> [PixelBuffer] {
        let reader = try Y4MReader(path: path)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return frames
    }

    private func readFrame() throws -> PixelBuffer? {
        let index = framesRead
        let start = file.offset
        func fail(_ reason: String) -> ELImageError {
            .malformedMedia(file: path, frame: index, reason: reason)
        }
        switch try file.readLine(maxBytes: Self.maximumLineLength, operation: "read frame \(index) of") {
        case .endOfFile(let bytes):
            if bytes.isEmpty { return nil }
            if Self.marker.starts(with: bytes) || Self.isMarker(bytes) {
                throw fail("the file ends inside the frame's FRAME line, after '\(Self.quoted(bytes))' at byte \(start); the file is cut short")
            }
            throw garbledMarker(bytes, at: start, fail: fail)
        case .tooLong(let bytes):
            guard Self.isMarker(bytes) else { throw garbledMarker(bytes, at: start, fail: fail) }
            throw fail("the FRAME line at byte \(start) is longer than \(Self.maximumLineLength) bytes; the file is damaged")
        case .complete(let bytes):
            guard Self.isMarker(bytes) else { throw garbledMarker(bytes, at: start, fail: fail) }
        }
        let expected = header.frameByteCount
        let bytes: [UInt8]
        switch try file.read(exactly: expected, operation: "read frame \(index) of") {
        case .endOfFile:
            throw fail("the file ends after the frame's FRAME line: 0 of its \(expected) bytes are there; the file is cut short")
        case .short(let got):
            throw fail("the file ends inside the frame: \(got) of its \(expected) bytes are there (\(header.width)x\(header.height) C\(header.chromaFormat.rawValue)); the file is cut short")
        case .complete(let data):
            bytes = data
        }
        let timestamp = MediaTime(frame: Int64(index),
                                  framesPerSecond: Int32(clamping: header.frameRate.numerator),
                                  Int32(clamping: header.frameRate.denominator))
        let buffer = try PixelBuffer(format: header.pixelFormat, width: header.width, height: header.height,
                                     data: bytes, timestamp: timestamp, colorSpace: colorSpace,
                                     chromaLocation: chromaLocation)
        framesRead += 1
        return buffer
    }

    private func garbledMarker(_ bytes: [UInt8], at offset: Int64, fail: (String) -> ELImageError) -> ELImageError {
        fail("expected a 'FRAME' line at byte \(offset), found '\(Self.quoted(bytes))'; the previous frame is longer or shorter than the header's \(header.width)x\(header.height) C\(header.chromaFormat.rawValue) (\(header.frameByteCount) bytes), or the file is damaged")
    }

    private static let marker = Array("FRAME".utf8)

    /// `FRAME`, alone or followed by a space and parameters.
    private static func isMarker(_ line: [UInt8]) -> Bool {
        line.starts(with: marker) && (line.count == marker.count || line[marker.count] == 0x20)
    }

    private static func checkMagic(_ bytes: [UInt8], path: String) throws {
        guard bytes.starts(with: Array(Y4MHeader.magic.utf8)) else {
            throw ELImageError.malformedMedia(
                file: path, frame: nil,
                reason: "not a YUV4MPEG2 file: it starts with '\(quoted(bytes))', not '\(Y4MHeader.magic)'")
        }
    }

    /// Up to 40 bytes, printable ASCII as is and the rest as `\xHH`.
    private static func quoted(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes.prefix(40) {
            if byte >= 0x20, byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return bytes.count > 40 ? text + "…" : text
    }
}
