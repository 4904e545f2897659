import CFFmpeg
import ELImage
import Synchronization

/// How much memory input may make ELImage allocate: the budget every reader checks before it
/// allocates for what a file, a stream or a device claims.
///
/// A header is a few bytes, and a damaged or hostile one can claim a picture of gigabytes, or a
/// sample index of millions of entries. So the readers check each picture's size against
/// `maximumPixels` before they allocate for it (Y4M, raw YUV, PNG, JPEG, movies), and FFmpeg
/// refuses any single block larger than `maximumAllocationBytes` (`av_max_alloc`). A refusal is
/// an error that names the limit and how to raise it.
///
/// The limits are the process's (FFmpeg's allocator is process-wide): set them once at start with
/// `apply(_:)`, before inputs are opened. The `elimage` tool sets them from `--max-pixels` and
/// `--max-allocation`.
public struct InputLimits: Sendable, Equatable {
    /// The most pixels one decoded picture may have (width x height).
    public var maximumPixels: Int
    /// The largest single block FFmpeg may allocate (`av_max_alloc`), in bytes.
    public var maximumAllocationBytes: Int

    /// The defaults: 64 Mi pixels (8192x8192, above 8K UHD's 33 Mi), and 512 MiB per block, which
    /// holds the largest of those pictures at 16 bits per sample in 4:4:4.
    public static let standard = InputLimits(maximumPixels: 8192 * 8192, maximumAllocationBytes: 512 << 20)

    /// The values `maximumPixels` may take: up to the largest picture any reader supports
    /// (16384 pixels a side, `Y4MHeader.maximumDimension`).
    public static let pixelRange = 1...(16384 * 16384)
    /// The values `maximumAllocationBytes` may take: 16 MiB (less breaks ordinary movies) to
    /// 64 GiB.
    public static let allocationRange = (16 << 20)...(64 << 30)

    public init(maximumPixels: Int, maximumAllocationBytes: Int) {
        self.maximumPixels = maximumPixels
        self.maximumAllocationBytes = maximumAllocationBytes
    }

    /// The limits in force in this process (`standard` until `apply(_:)` is called).
    public static var current: InputLimits { state.withLock { $0 } }

    /// Makes `limits` the process's limits, FFmpeg's allocator included.
    /// - Throws: `ELImageError.invalidInput` when a limit is outside `pixelRange` or
    ///   `allocationRange`; nothing changes then.
    public static func apply(_ limits: InputLimits) throws {
        guard pixelRange.contains(limits.maximumPixels) else {
            throw ELImageError.invalidInput(what: "a pixel limit of \(limits.maximumPixels)",
                                            hint: "give a limit from \(pixelRange.lowerBound) to \(pixelRange.upperBound) pixels")
        }
        guard allocationRange.contains(limits.maximumAllocationBytes) else {
            throw ELImageError.invalidInput(what: "an allocation limit of \(limits.maximumAllocationBytes) bytes",
                                            hint: "give a limit from \(allocationRange.lowerBound >> 20) MiB to \(allocationRange.upperBound >> 30) GiB")
        }
        state.withLock { current in
            current = limits
            av_max_alloc(limits.maximumAllocationBytes)
        }
    }

    /// Throws unless a `width` x `height` picture is within `maximumPixels`.
    /// - Parameters:
    ///   - width: the picture's width in pixels.
    ///   - height: the picture's height in pixels.
    ///   - file: the input, for the error.
    ///   - kind: what stated the size, for the error ("PNG header").
    /// - Throws: `ELImageError.malformedMedia` (frame nil) naming the size, the limit and how to
    ///   raise it.
    public func checkPicture(width: Int, height: Int, file: String, kind: String) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard overflow || pixels > maximumPixels else { return }
        throw ELImageError.malformedMedia(
            file: file, frame: nil,
            reason: "its \(kind) gives a \(width)x\(height) picture, more than the limit of \(maximumPixels) pixels a picture\(Self.side(of: maximumPixels)); if the picture is meant to be that large, raise the limit (elimage --max-pixels, InputLimits.maximumPixels; \(DocumentationPage.inputLimits.pointer))")
    }

    /// The text of an FFmpeg allocation refused by `maximumAllocationBytes`, for messages about
    /// `AVERROR(ENOMEM)`.
    public var allocationRefusal: String {
        "libavformat or libavcodec asked for more memory than the limit of \(maximumAllocationBytes >> 20) MiB for one block; a header claiming that much is damaged, or, for a genuine file, raise the limit (elimage --max-allocation, InputLimits.maximumAllocationBytes; \(DocumentationPage.inputLimits.pointer))"
    }

    /// " (8192x8192)" for a square count, else nothing.
    private static func side(of pixels: Int) -> String {
        let side = Int(Double(pixels).squareRoot())
        return side * side == pixels ? " (\(side)x\(side))" : ""
    }

    /// The limits, FFmpeg's set on first use, so that the standard block limit holds even when
    /// `apply(_:)` is never called.
    private static let state: Mutex<InputLimits> = {
        av_max_alloc(standard.maximumAllocationBytes)
        return Mutex(standard)
    }()
}
