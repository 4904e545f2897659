
/// The mean over a (2 radius + 1)² square, in two separable passes (`SeparableKernel`: one exact
/// read a texel up to radius 16, linear-sampling pairs above). Edges repeat the border pixels.
public final class BoxBlur: FrameFilter, PlanDescribing {
    public let inputSlots = InputSlots()
    public let outputs = OutputTargets()
    private let state = Locked<Int>(0)

    /// The largest radius, in pixels.
    public static let maximumRadius = 127

    /// 0...127 pixels; 0 leaves the picture unchanged. Clamped.
    public var radius: Int {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = min(max(newValue, 0), Self.maximumRadius) } }
    }

    package var planSummary: String {
        let reads = SeparableKernel.box(radius: radius).readsPerPixel
        return radius > 0 ? "2 passes (separable, \(reads) reads a pixel each)" : "no pass (radius 0)"
    }

    public init(radius: Int = 2) {
        self.radius = radius
    }

    public func prepare(in context: isolated RenderContext) throws {
        let radius = self.radius
        if radius > 0 { try SeparableKernel.box(radius: radius).prepare(in: context) }
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let radius = self.radius
        guard radius > 0 else { return frame }
        return try SeparableKernel.box(radius: radius).apply(to: frame, in: context)
    }
}
