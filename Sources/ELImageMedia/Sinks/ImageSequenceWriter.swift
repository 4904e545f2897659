import ELImage
import Foundation

/// The still-image file type of an image sequence.
public enum ImageSequenceFormat: Sendable, Equatable {
    /// Lossless PNG (RGB, or RGBA when a pixel is not opaque).
    case png
    /// Lossless 16-bit PNG (RGB or RGBA): keeps what a 10- or 16-bit source holds.
    case png16
    /// JPEG at `quality` 1 (smallest) to 100 (best).
    case jpeg(quality: Int)
}

/// Writes each frame (tightly packed RGBA) as its own PNG or JPEG file, named by a printf
/// pattern with the frame's index (`out_%05d.png` → `out_00000.png`, `out_00001.png`, ...); a
/// name without `%` takes the first frame only. Each file is written under a temporary name and
/// renamed into place when complete (`PNGFile.write`, `JPEGFile.write`), so the files already
/// written stay whatever happens to a later one.
final class ImageSequenceWriter: FrameWriter {
    let pattern: NumberedFileName
    let format: ImageSequenceFormat
    /// The files put in place, in order.
    private(set) var written: [String] = []

    init(pattern: NumberedFileName, format: ImageSequenceFormat) {
        self.pattern = pattern
        self.format = format
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        let path = pattern.path(index: written.count)
        let image = RGBAImage(width: buffer.width, height: buffer.height, pixels: buffer.data)
        switch format {
        case .png: try PNGFile.write(image, to: path)
        case .png16: try PNGFile.write(buffer, to: path)
        case .jpeg(let quality): try JPEGFile.write(image, to: path, quality: quality)
        }
        written.append(path)
        return pattern.isNumbered ? .more : .full
    }

    /// Every file is complete and in place as soon as it is written.
    func finish() throws {}
    func publish() throws {}
    /// The files written stay; the one that failed was never put in place.
    func salvage(after error: ELImageError) {}

    /// Removes the files this run put in place (a cancelled run).
    func discard() {
        for path in written { unlink(path) }
        written.removeAll()
    }
}
