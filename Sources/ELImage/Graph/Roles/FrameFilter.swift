/// A one-input filter that renders each frame with its own code (several passes, generated
/// shaders) rather than one fixed shader: blurs, fused colour chains and the beauty filter.
///
/// Conforming takes `render(_:in:)`, `inputSlots` and `outputs`; the extension delivers the result
/// to the targets and passes the end of the stream on.
public protocol FrameFilter: ImageOutput, ImageInput, PreparableFilter {
    /// Renders the output for `frame`. May return `frame` itself when the filter is an identity
    /// at its current settings (frames never change once rendered, so that is safe).
    func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame
}

/// A `FrameFilter` whose last pass can run inside the pack of a sink that packs 8-bit 4:2:0
/// (`DeferredPass`): it renders every pass but the last and describes that one.
protocol DeferringFilter: FrameFilter {
    /// Renders the passes before the last and describes the last; nil when the filter draws
    /// nothing at its current settings (`render` returns the frame itself).
    func renderDeferred(_ frame: TextureFrame, in context: isolated RenderContext) throws -> DeferredPass?
}

extension FrameFilter {
    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        if let deferring = self as? any DeferringFilter, let target = outputs.deferringSink(),
           let pass = try deferring.renderDeferred(frame, in: context) {
            target.deliver(pass, in: context)
            return
        }
        deliver(try render(frame, in: context), in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        if index == 0 { deliverEndOfStream(in: context) }
    }
}
