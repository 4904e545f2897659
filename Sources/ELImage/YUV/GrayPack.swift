/// 8-bit I420 or YV12 of a gray picture in one draw: a program that writes four Y' samples a texel
/// (rgba_to_yuv.fsh's Y' pass, its pixels from a fused line or a filter's last pass) draws the Y'
/// rows of one frame-sized target, whose chroma rows are cleared to the neutral value (what
/// packing any gray picture gives: its Cb and Cr are the offset).
enum GrayPack {
    /// Whether a `width` x `height` picture packs so into `format`: I420 or YV12 whose rows fit
    /// whole texels.
    static func applies(to format: PixelFormat, width: Int, height: Int) -> Bool {
        [.i420, .yv12].contains(format) && width % 8 == 0 && height % 4 == 0
    }

    /// Draws `program` reading `inputs` into the Y' rows of a packed frame and returns it;
    /// `setUniforms` sets what the program needs besides the Y' conversion (`yuvMatrix`,
    /// `yuvOffset`), which this sets.
    static func pack(format: PixelFormat, width: Int, height: Int, timestamp: MediaTime, colorSpace: ColorSpace,
                     chromaLocation: ChromaLocation, program: ShaderProgram, inputs: [TextureFrame],
                     setUniforms: (ShaderProgram) -> Void, in context: isolated RenderContext) throws -> PackedPlanes {
        let conversion = YCbCrConversion.fromRGB(colorSpace)
        let packed = try context.makeFrame(width: width / 4, height: height * 3 / 2, filtering: .nearest,
                                           timestamp: timestamp, colorSpace: colorSpace)
        context.clearRows(height..<packed.height, of: packed, to: min(max(conversion.offset.y, 0), 1))
        try context.draw(program, into: packed, inputs: inputs, rows: 0..<height) { program in
            setUniforms(program)
            program.set(.mat3(conversion.matrix), for: "yuvMatrix")
            program.set(.vec3(conversion.offset), for: "yuvOffset")
        }
        var planes = PackedPlanes(textures: [packed], format: format, width: width, height: height,
                                  colorSpace: colorSpace, chromaLocation: chromaLocation)
        planes.isWholeFrame = true
        return planes
    }
}
