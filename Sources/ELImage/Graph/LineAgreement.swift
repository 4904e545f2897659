/// What a source's pictures are, as far as a fused line's upload cares: their size, layout and
/// chroma siting, and how they are turned. Pictures of one format share one `LineAgreement`.
package struct PictureFormat: Equatable, Sendable {
    let width: Int
    let height: Int
    let pixelFormat: PixelFormat
    let chromaLocation: ChromaLocation
    let orientation: Orientation

    init(_ buffer: PixelBuffer, orientation: Orientation) {
        width = buffer.width
        height = buffer.height
        pixelFormat = buffer.format
        chromaLocation = buffer.chromaLocation
        self.orientation = orientation
    }
}

/// What a fused line (`FusableLine`) and its source's pictures agree, once for each plan and
/// picture format (as GStreamer's caps are agreed once per link): whether pictures of that format
/// take the line, and if so how they are uploaded for the line's sink. A picture of the agreed
/// format then costs an upload and its recipe, and asks the sink nothing.
///
/// What the line's filters say stays a question of each picture: their settings can change at any
/// frame (a crop that keeps the picture at one size and not at the next, a lookup table set
/// later), so `ConversionRecipe.make` asks them.
package struct LineAgreement: Sendable {
    let layout: PlaneTextureLayout
    /// How many chroma columns four neighbouring pixels interpolate between (2:1 subsampled
    /// across: 3 co-sited, 4 centred); nil reads chroma pixel by pixel (4:4:4).
    let sharedChromaColumns: Int?
    /// Whether the Y' plane is uploaded as RGBA8 texels of four samples (`FUSED_LUMA_QUADS`):
    /// for gray output, or a sink packing with `MatchedPack420`, with shared chroma columns.
    let readsLumaQuads: Bool

    /// The agreement of `line` with pictures of `format`, or why they do not take the line.
    static func agree(_ line: FusableLine, format: PictureFormat) -> Result<LineAgreement, NotFused> {
        guard format.orientation == .up else { return .failure(NotFused(reason: "the picture is turned (\(format.orientation))")) }
        guard !format.pixelFormat.isHighDepth else {
            return .failure(NotFused(reason: "the input has \(format.pixelFormat.bitsPerSample)-bit samples (worked on in half floats)"))
        }
        let layout = PlaneTextureLayout(format.pixelFormat)
        guard layout.shaderLayout == 1 else {
            return .failure(NotFused(reason: "the input is \(format.pixelFormat), not planar Y'CbCr with interleaved or separate chroma"))
        }
        if let packing = line.packing, packing.format.isHighDepth {
            return .failure(NotFused(reason: "\(NodeFailure.name(of: line.sink)) packs \(packing.format) (worked on in half floats)"))
        }
        guard format.width % 8 == 0, format.height % 4 == 0 else {
            return .failure(NotFused(reason: "\(format.width)x\(format.height) is not a multiple of 8x4"))
        }
        // A plain conversion saves a pass only where the sink packs with MatchedPack420.
        guard !line.operations.isEmpty || MatchedPack420.takes(line.packing) else {
            return .failure(NotFused(reason: "no colour filter before \(NodeFailure.name(of: line.sink)) "
                                     + "(a plain conversion packs as usual)"))
        }
        let sharedChromaColumns = layout.chromaDivisor.x != 2 ? nil : format.chromaLocation == .center ? 4 : 3
        let packsGray = line.packing.map { [.i420, .yv12].contains($0.format) } ?? false
            && (line.operations.last?.producesMonochrome ?? false)
        let lumaQuads = sharedChromaColumns != nil && (packsGray || MatchedPack420.takes(line.packing))
        return .success(LineAgreement(layout: layout, sharedChromaColumns: sharedChromaColumns, readsLumaQuads: lumaQuads))
    }
}
