/// A one-input filter that renders each frame with its own code (several passes, generated
/// shaders) rather than one fixed shader: the base of blurs, fused colour chains and the beauty
/// filter.
///
/// Subclasses override `render(_:in:)`; the class delivers the result to the targets and passes
/// the end of the stream on.
open class FrameFilter: ImageOutput, ImageInput, PreparableFilter, @unchecked Sendable {
    // @unchecked Sendable: immutable here; subclasses keep their settings behind locks.
    public let inputSlots = InputSlots(count: 1)

    public override init() { super.init() }

    /// Renders the output for `frame`. May return `frame` itself when the filter is an identity
    /// at its current settings (frames never change once rendered, so that is safe).
    open func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        frame
    }

    /// Compiles the filter's programs now; see `PreparableFilter`. The default does nothing.
    open func prepare(in context: isolated RenderContext) throws {}

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        deliver(try render(frame, in: context), in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        if index == 0 { deliverEndOfStream(in: context) }
    }
}
