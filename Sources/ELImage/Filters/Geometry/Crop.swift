
/// Cuts a rectangle out of each frame (`Shaders/crop.fsh`); the output has the rectangle's size.
///
/// The rectangle is in pixels of the input, origin at the top-left. Parts outside the input are cut
/// off; a rectangle entirely outside keeps at least the nearest 1x1 pixel, so the output is never empty.
/// A rectangle that holds the whole input passes it on without a draw (`PassesOnUnchanged`).
public final class Crop: SinglePassFilter, PassesOnUnchanged {
    /// A rectangle in pixels.
    public struct Region: Sendable, Equatable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        /// The part of the region inside a `width` x `height` picture, at least 1x1.
        public func clamped(toWidth width: Int, height: Int) -> Region {
            let left = min(max(x, 0), width - 1), top = min(max(y, 0), height - 1)
            let right = min(max(x &+ self.width, left + 1), width), bottom = min(max(y &+ self.height, top + 1), height)
            return Region(x: left, y: top, width: right - left, height: bottom - top)
        }
    }

    public let pass = ShaderPass(name: "crop", fragmentShader: EmbeddedShaders.cropFsh)
    public let outputs = OutputTargets()

    /// Reads its input 0 at whole texels of the rectangle: the colour before it runs in its pass.
    public var reads: InputReading { .texelCentres }
    private let state: Locked<Region>

    /// The rectangle to keep, before clamping to the input.
    public var region: Region {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    public init(_ region: Region) {
        state = Locked(region)
    }

    public func outputSize(forInput input: TextureFrame) -> (width: Int, height: Int) {
        let region = self.region.clamped(toWidth: input.width, height: input.height)
        return (region.width, region.height)
    }

    public func passesOnUnchanged(width: Int, height: Int, colorSpace: ColorSpace) -> Bool {
        region.clamped(toWidth: width, height: height) == Region(x: 0, y: 0, width: width, height: height)
    }

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        let region = self.region.clamped(toWidth: input.width, height: input.height)
        return ["origin": .ivec2(SIMD2(Int32(region.x), Int32(region.y)))]
    }
}
