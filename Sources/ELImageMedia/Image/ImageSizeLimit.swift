import ELImage

/// The largest picture the PNG and JPEG readers decode: 16384 pixels a side, as for Y4M
/// (`Y4MHeader.maximumDimension`) and the largest textures GPUs offer.
///
/// The readers check the size a file's header states before they allocate anything for its
/// pixels: a header is a few bytes, and one that claims 65535x65535 would otherwise ask for
/// 16 GiB of RGBA. Within that, a picture must also fit `InputLimits.maximumPixels`.
public enum ImageSizeLimit {
    /// The largest width or height accepted, in pixels.
    public static let maximumDimension = Y4MHeader.maximumDimension

    /// Throws unless `width` x `height` is a picture the readers decode, within `InputLimits`.
    /// - Throws: `ELImageError.malformedMedia` (frame nil) naming `file`, `kind` and the size.
    static func check(width: Int, height: Int, file: String, kind: String) throws {
        guard width > 0, height > 0 else {
            throw ELImageError.malformedMedia(file: file, frame: nil,
                                              reason: "its \(kind) header gives an empty \(width)x\(height) picture")
        }
        guard width <= maximumDimension, height <= maximumDimension else {
            throw ELImageError.malformedMedia(
                file: file, frame: nil,
                reason: "its \(kind) header gives a \(width)x\(height) picture; pictures larger than \(maximumDimension) pixels a side are not supported (the header may be damaged)")
        }
        try InputLimits.current.checkPicture(width: width, height: height, file: file, kind: "\(kind) header")
    }
}
