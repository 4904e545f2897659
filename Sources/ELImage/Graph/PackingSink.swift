/// A sink that packs the frames it takes into Y'CbCr planes before it reads them back (a
/// `YUVDataOutput`, a file or an encoder). It takes pictures as they come (`Picture`): a recipe
/// runs inside its pack, an uploaded picture not converted yet is packed straight from its planes.
package protocol PackingSink: PlannedStage {
    /// The format and chroma filter the sink packs into now; nil when it does not pack (RGBA).
    var packing: (format: PixelFormat, chromaDownsampling: ChromaDownsampling)? { get }

    /// Where the sink sites the chroma it packs; nil: where each picture's source sited it.
    var packingChromaLocation: ChromaLocation? { get }

    /// Takes one picture, as `receive(_:at:in:)` takes a frame, packing it with `picture.packed`.
    func receive(_ picture: any PackablePicture, in context: isolated RenderContext) throws
}
