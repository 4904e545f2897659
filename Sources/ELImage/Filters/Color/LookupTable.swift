
/// Maps colours through a 3D lookup table in GPUImage's 512x512 layout
/// (`Shaders/color_lookup.glsl`): 8x8 tiles of 64x64 texels; tile `b` (left to right, then top
/// to bottom) holds blue level `b`, with red growing along x and green along y inside the tile.
/// Colours between the 64 levels are interpolated trilinearly.
///
/// Make a table by running `LookupTable.identityImage()` through any colour grading (an editor,
/// a chain of ELImage filters) and loading the result.
public final class LookupTable: PointFilter {
    public struct Parameters: Sendable {
        /// 0...1: 0 leaves the picture unchanged, 1 applies the table fully. Clamped; NaN means 1.
        @Uniform("intensity", in: 0...1) public var intensity: Float = 1
    }

    public let parameters = Parameters()
    public let colorPiece = ColorPiece(builtIn: "lookup", source: EmbeddedShaders.colorLookupGlsl)
    public let pass: ShaderPass
    public let outputs = OutputTargets()
    /// The table's pixels, uploaded once per render context on first use. The filter keeps the
    /// uploaded texture (and so its context) until it is used with another context or released.
    public let table: RGBAImage
    private let uploaded = Locked<(context: RenderContext, frame: TextureFrame)?>(nil)

    /// - Throws: `ELImageError.invalidInput` unless `table` is 512x512 with its pixels.
    public init(table: RGBAImage, intensity: Float = 1) throws {
        guard table.width == 512, table.height == 512, table.pixels.count >= 512 * 512 * 4 else {
            throw ELImageError.invalidInput(
                what: "a lookup table image must be 512x512 RGBA (8x8 tiles of 64x64), got \(table.width)x\(table.height)",
                hint: "start from LookupTable.identityImage() and grade it")
        }
        self.table = table
        pass = ShaderPass(colorPiece: colorPiece)
        self.intensity = intensity
    }

    /// The table that maps every colour to itself.
    public static func identityImage() -> RGBAImage {
        var pixels = [UInt8](repeating: 255, count: 512 * 512 * 4)
        for y in 0..<512 {
            for x in 0..<512 {
                let blue = (y / 64) * 8 + x / 64
                let offset = (y * 512 + x) * 4
                pixels[offset] = UInt8(((x % 64) * 255 + 31) / 63)
                pixels[offset + 1] = UInt8(((y % 64) * 255 + 31) / 63)
                pixels[offset + 2] = UInt8((blue * 255 + 31) / 63)
            }
        }
        return RGBAImage(width: 512, height: 512, pixels: pixels)
    }

    public func colorTextures(in context: isolated RenderContext) throws -> [String: TextureFrame] {
        if let current = uploaded.withLock({ $0 }), current.context === context {
            return ["table": current.frame]
        }
        let frame = try context.makeFrame(width: 512, height: 512, timestamp: .zero)
        try table.pixels.withUnsafeBytes { try context.upload($0, bytesPerRow: 512 * 4, into: frame) }
        uploaded.withLock { $0 = (context, frame) }
        return ["table": frame]
    }
}
