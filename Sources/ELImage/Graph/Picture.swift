/// What flows between nodes: pixels already drawn (a pooled `TextureFrame`), or a recipe not drawn
/// yet: a shader stage over its input frames with colour pieces before and after it (`Recipe`),
/// or Y'CbCr planes just uploaded with colour pieces to run after their conversion
/// (`ConversionRecipe`).
///
/// A filter hands its targets a recipe instead of drawing; the recipe is drawn only when something
/// needs its pixels: a node that reads its input anywhere (a blur, a resize), fan-out to several
/// readers, a recipe that cannot take more. A per-pixel colour filter adds its piece to the recipe,
/// a filter that reads its input at its own pixel (`InputReading.ownPixel`) runs the recipe's
/// colour in its own pass, and a sink that packs Y'CbCr runs the whole recipe inside its pack. So
///
///     camera --> saturation --> vignette --> encoder
///
/// draws the picture once, in the encoder's pack, instead of three times.
///
/// Nodes that take frames (`ImageInput.receive(_:at:in:)` with a `TextureFrame`) never see a
/// recipe: the default `receive` of a picture draws it first.
public struct Picture: Sendable {
    /// Drawn, or still a recipe.
    package enum Content: Sendable {
        case pixels(TextureFrame)
        case recipe(Recipe)
        case conversion(ConversionRecipe)
    }

    package let content: Content

    /// A picture of pixels already drawn.
    public init(_ frame: TextureFrame) {
        content = .pixels(frame)
    }

    package init(_ recipe: Recipe) {
        content = .recipe(recipe)
    }

    package init(_ recipe: ConversionRecipe) {
        content = .conversion(recipe)
    }

    /// The frame or the recipe, as what both are.
    private var described: any PackablePicture {
        switch content {
        case .pixels(let frame): frame
        case .recipe(let recipe): recipe
        case .conversion(let recipe): recipe
        }
    }

    public var width: Int { described.width }
    public var height: Int { described.height }
    /// The time of the source frame it was made from.
    public var timestamp: MediaTime { described.timestamp }
    /// The picture's number in its source's stream (`TextureFrame.sequenceNumber`).
    public var sequenceNumber: Int { described.sequenceNumber }
    /// The matrix and range of the picture's source.
    public var colorSpace: ColorSpace { described.colorSpace }

    /// Whether its pixels exist (a frame), rather than a recipe still to draw.
    public var isDrawn: Bool {
        if case .pixels = content { return true }
        return false
    }

    /// The picture's pixels: the frame itself, or the recipe drawn now (one pass).
    public func pixels(in context: isolated RenderContext) throws -> TextureFrame {
        switch content {
        case .pixels(let frame): frame
        case .recipe(let recipe): try recipe.render(in: context)
        case .conversion(let recipe): try recipe.render(in: context)
        }
    }
}

extension Picture: PackablePicture {
    package var chromaLocation: ChromaLocation { described.chromaLocation }

    /// Packs the frame, or runs the recipe inside the pack (`Recipe.packed`).
    package func packed(as format: PixelFormat, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
                        chromaDownsampling: ChromaDownsampling, in context: isolated RenderContext) throws -> PackedPlanes {
        try described.packed(as: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                             chromaDownsampling: chromaDownsampling, in: context)
    }
}

/// How a filter's shader reads its input 0 (`SinglePassFilter.reads`, `ShaderFilter(reads:)`):
/// what decides whether the colour of a recipe before it can run inside its pass.
public enum InputReading: Sendable, Equatable {
    /// Only at the pixel it writes (a vignette, a tint, a blend of two pictures at the same place):
    /// the colour pieces before it run inside its pass, once a pixel.
    case ownPixel
    /// At texel centres near the pixel it writes, never between texels (a 3×3 sharpen, edges):
    /// the colour pieces before it run inside its pass, once a read.
    case texelCentres
    /// Anywhere, filtered between texels (a blur, a resize, a warp): a recipe before it is drawn first.
    case anywhere

    /// Whether per-pixel colour before the pass gives the same result run on each read.
    var runsColorOnReads: Bool { self != .anywhere }
}
