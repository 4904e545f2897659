import ELImage
import ELImageMedia
import Foundation

/// Where `elimage run` gets CPU frames: a Y4M file or a raw YUV file.
protocol FrameSource {
    /// The next frame, or nil at the end.
    func nextFrame() throws -> PixelBuffer?
    /// How many frames there will be, when known (for the ETA).
    var expectedFrames: Int? { get }
}

/// Frames of a YUV4MPEG2 file, streamed.
final class Y4MSource: FrameSource {
    private let reader: Y4MReader
    let expectedFrames: Int?

    init(path: String, colorOverride: ColorOverride) throws {
        let reader = try Y4MReader(path: path)
        reader.colorSpace = colorOverride.apply(to: reader.colorSpace)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let frameBytes = reader.header.frameByteCount + 6  // "FRAME\n"
        expectedFrames = size.map { $0 / max(1, frameBytes) }
        self.reader = reader
    }

    func nextFrame() throws -> PixelBuffer? { try reader.nextFrame() }
}

/// Frames of a headerless raw file, given size, format and rate.
final class RawSource: FrameSource {
    private let reader: RawYUVReader
    let expectedFrames: Int?

    init(path: String, width: Int, height: Int, format: PixelFormat, frameRate: Y4MHeader.Ratio,
         colorOverride: ColorOverride) throws {
        reader = try RawYUVReader(path: path, width: width, height: height, format: format, frameRate: frameRate)
        reader.colorSpace = colorOverride.apply(to: reader.colorSpace)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        expectedFrames = size.map { $0 / max(1, format.byteCount(width: width, height: height)) }
    }

    func nextFrame() throws -> PixelBuffer? { try reader.nextFrame() }
}

/// The matrix and range the user forced with --matrix and --range.
struct ColorOverride {
    var matrix: ColorMatrix?
    var range: ColorRange?

    var isEmpty: Bool { matrix == nil && range == nil }

    /// `colorSpace` with the forced matrix and range.
    func apply(to colorSpace: ColorSpace) -> ColorSpace {
        var result = colorSpace
        if let matrix { result = ColorSpace(matrix: matrix, range: result.range) }
        if let range { result.range = range }
        return result
    }
}
