/// The picture of a fused line (`FusedConversionPlan`), never made as RGBA: the sink packs it
/// straight from the uploaded planes.
/// - Gray output: ONE draw into the Y' rows of a packed I420/YV12 frame, its chroma rows cleared
///   to the neutral value (what packing the separate passes' gray frame gives).
/// - Colour output (or none) into 8-bit 4:2:0 with the matched chroma filter (the default of Y4M
///   files, the encoder and `YUVDataOutput`): `MatchedPack420`'s two passes, the first of them
///   converting and colouring the planes (each pixel once). Packed otherwise (another siting or
///   size), it is made as RGBA in one pass and packed as usual.
struct FusedLinePicture: PackablePicture {
    let plan: FusedConversionPlan
    let planes: [TextureFrame]
    let buffer: PixelBuffer
    let layout: PlaneTextureLayout

    var width: Int { buffer.width }
    var height: Int { buffer.height }
    var timestamp: MediaTime { buffer.timestamp }
    var colorSpace: ColorSpace { buffer.colorSpace }
    var chromaLocation: ChromaLocation { buffer.chromaLocation }

    func packed(as format: PixelFormat, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
                chromaDownsampling: ChromaDownsampling, in context: isolated RenderContext) throws -> PackedPlanes {
        if plan.monochrome {
            return try packedGray(as: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                                  chromaDownsampling: chromaDownsampling, in: context)
        }
        guard MatchedPack420.applies(to: format, width: width, height: height, chromaLocation: chromaLocation,
                                     chromaDownsampling: chromaDownsampling) else {
            return try plan.coloredPicture(planes: planes, buffer: buffer, layout: layout, in: context)
                .packed(as: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                        chromaDownsampling: chromaDownsampling, in: context)
        }
        return try MatchedPack420.pack(
            format: format, width: width, height: height, timestamp: timestamp, colorSpace: colorSpace,
            chromaLocation: chromaLocation, firstPass: try plan.packProgram(chromaLocation: chromaLocation, in: context),
            inputs: planes, setUniforms: { program in
                plan.setUniforms(of: program, buffer: buffer, layout: layout, format: format, colorSpace: colorSpace)
            }, in: context)
    }

    private func packedGray(as format: PixelFormat, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
                            chromaDownsampling: ChromaDownsampling, in context: isolated RenderContext) throws -> PackedPlanes {
        guard [.i420, .yv12].contains(format) else {
            throw ELImageError.invalidState(
                node: NodeFailure.name(of: plan.output),
                reason: "a fused gray line packs only I420 or YV12, but the sink asked for \(format) (its `packing` said otherwise)")
        }
        let program = try plan.program(format: format, chromaLocation: chromaLocation,
                                       chromaDownsampling: chromaDownsampling, in: context)
        return try GrayPack.pack(format: format, width: width, height: height, timestamp: timestamp, colorSpace: colorSpace,
                                 chromaLocation: chromaLocation, program: program, inputs: planes, setUniforms: { program in
            plan.setUniforms(of: program, buffer: buffer, layout: layout, format: format, colorSpace: colorSpace)
        }, in: context)
    }
}
