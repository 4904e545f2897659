/// A picture on the render thread that can be packed into the planes of a `PixelFormat`: an RGBA
/// `TextureFrame` (through `RenderContext.packPlanes`), or a fused line's picture that is never
/// made as RGBA and is packed straight from its source's planes.
package protocol PackablePicture {
    var width: Int { get }
    var height: Int { get }
    var timestamp: MediaTime { get }
    /// The picture's number in its source's stream.
    var sequenceNumber: Int { get }
    /// The matrix and range of the picture's source.
    var colorSpace: ColorSpace { get }
    /// Where the picture's source sited its chroma.
    var chromaLocation: ChromaLocation { get }

    /// Packs the picture into the planes of `format` with `colorSpace`, sited at `chromaLocation`.
    func packed(as format: PixelFormat, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
                chromaDownsampling: ChromaDownsampling, in context: isolated RenderContext) throws -> PackedPlanes
}

extension TextureFrame: PackablePicture {
    package func packed(as format: PixelFormat, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
                        chromaDownsampling: ChromaDownsampling, in context: isolated RenderContext) throws -> PackedPlanes {
        try context.packPlanes(of: self, as: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                               chromaDownsampling: chromaDownsampling)
    }
}
