/// A one-input filter that renders each frame with its own code (several passes, generated
/// shaders) rather than one fixed shader: blurs, fused colour chains and the beauty filter.
///
/// Conforming takes `render(_:in:)`, `inputSlots` and `outputs`; the extension delivers the result
/// to the targets and passes the end of the stream on.
public protocol FrameFilter: ImageOutput, ImageInput, PreparableFilter {
    /// Renders the output for `frame`. May return `frame` itself when the filter is an identity
    /// at its current settings (frames never change once rendered, so that is safe).
    func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame

    /// The output for `frame` as a picture (`Picture`): by default the frame `render` draws. A
    /// filter whose last pass can wait returns it as a recipe: the passes before it are drawn, and
    /// the last runs where its pixels are needed (inside a sink's pack, with the colour after it).
    func renderPicture(_ frame: TextureFrame, in context: isolated RenderContext) throws -> Picture
}

extension FrameFilter {
    public func renderPicture(_ frame: TextureFrame, in context: isolated RenderContext) throws -> Picture {
        Picture(try render(frame, in: context))
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        deliver(try renderPicture(frame, in: context), in: context)
    }

    /// Hands a picture it keeps as it is (`PassesOnUnchanged`) on undrawn; renders the others'
    /// pixels.
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        if let passing = self as? any PassesOnUnchanged,
           passing.passesOnUnchanged(width: picture.width, height: picture.height, colorSpace: picture.colorSpace) {
            passing.passedOnUnchanged()
            deliver(picture, in: context)
            return
        }
        deliver(try renderPicture(picture.pixels(in: context), in: context), in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        if index == 0 { deliverEndOfStream(in: context) }
    }
}
