
/// A sink that converts every frame to Y'CbCr (or RGBA) on the GPU, reads it back and hands the
/// `PixelBuffer` to a closure: the feed for encoders, Y4M files and other YUV consumers.
///
/// The closure runs on the render thread. The buffer is reused for the next frame unless the closure
/// keeps it (then the closure's copy is its own).
public final class YUVDataOutput: ImageInput, PackingSink {
    public let inputSlots = InputSlots(count: 1)
    /// The format frames are read back in (i420, yv12, nv12, nv21, i422, i444, gray8 or rgba).
    public let format: PixelFormat
    private let colorSpace: ColorSpace?
    private let chromaLocation: ChromaLocation?
    let chromaDownsampling: ChromaDownsampling
    private let handler: @Sendable (PixelBuffer) -> Void
    private let reusable = Locked<PixelBuffer?>(nil)

    /// - Parameters:
    ///   - colorSpace: the matrix and range to write; `nil` uses each frame's own colour space.
    ///   - chromaLocation: where subsampled chroma is sited (MPEG-2 "left" by default, as H.264
    ///     expects); `nil` sites it as each frame's source did (`TextureFrame.chromaLocation`), so a
    ///     Y'CbCr source is written back without resampling its chroma to another siting.
    ///   - chromaDownsampling: the chroma filter of subsampled formats (`.matched`, the default,
    ///     writes Y'CbCr sources back with their chroma intact; `.average` blurs it slightly).
    public init(format: PixelFormat = .i420, colorSpace: ColorSpace? = nil, chromaLocation: ChromaLocation? = .left,
                chromaDownsampling: ChromaDownsampling = .matched,
                handler: @escaping @Sendable (PixelBuffer) -> Void) throws {
        _ = try RenderContext.planeKinds(of: format)
        self.format = format
        self.colorSpace = colorSpace
        self.chromaLocation = chromaLocation
        self.chromaDownsampling = chromaDownsampling
        self.handler = handler
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        try produce(width: frame.width, height: frame.height, colorSpace: frame.colorSpace,
                    chromaLocation: frame.chromaLocation) { buffer in
            try context.readPixels(of: frame, into: &buffer, chromaDownsampling: chromaDownsampling)
        }
    }

    package var packing: (format: PixelFormat, chromaDownsampling: ChromaDownsampling)? {
        format == .rgba ? nil : (format, chromaDownsampling)
    }

    package func receive(_ picture: any PackablePicture, in context: isolated RenderContext) throws {
        try produce(width: picture.width, height: picture.height, colorSpace: picture.colorSpace,
                    chromaLocation: picture.chromaLocation) { buffer in
            try picture.packed(as: buffer.format, colorSpace: buffer.colorSpace, chromaLocation: buffer.chromaLocation,
                               chromaDownsampling: chromaDownsampling, in: context).read(into: &buffer)
        }
    }

    /// The colour space written for a picture in `source`.
    func outputColorSpace(forSource source: ColorSpace) -> ColorSpace { colorSpace ?? source }

    /// The chroma siting written for a picture sited at `source`.
    func outputChromaLocation(forSource source: ChromaLocation) -> ChromaLocation { chromaLocation ?? source }

    /// Hands the handler a buffer of `format` filled by `fill` (given it sized and tagged with the
    /// output colour space and siting for a picture of `colorSpace` sited at `chromaLocation`): a
    /// frame read back, or a `FusedConversionPlan`'s pass.
    func produce(width: Int, height: Int, colorSpace source: ColorSpace, chromaLocation sourceSiting: ChromaLocation,
                 fill: (inout PixelBuffer) throws -> Void) throws {
        var buffer = reusable.withLock { stored in
            defer { stored = nil }
            return stored
        }
        if buffer == nil || buffer?.width != width || buffer?.height != height {
            buffer = try PixelBuffer(format: format, width: width, height: height)
        }
        guard var buffer else { return }
        buffer.colorSpace = outputColorSpace(forSource: source)
        buffer.chromaLocation = outputChromaLocation(forSource: sourceSiting)
        try fill(&buffer)
        handler(buffer)
        reusable.withLock { $0 = buffer }
    }
}
