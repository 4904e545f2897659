/// A node that receives frames: a filter or a sink.
///
/// `receive` runs on the render thread of the context the frame belongs to. Throwing from it
/// reports the error through the context's error handler; the rest of the graph keeps running.
public protocol ImageInput: AnyObject, Sendable {
    /// The node's inputs; connecting a source with `-->` takes the next free one.
    var inputSlots: InputSlots { get }

    /// A new frame arrived on input `index`.
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws

    /// A new picture arrived on input `index`: pixels, or a recipe not drawn yet (`Picture`). The
    /// default draws a recipe and takes the frame with `receive(_:at:in:)`; a node that can run a
    /// recipe inside its own pass (a colour filter, a sink that packs) takes it as it is.
    func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws

    /// The source on input `index` has no more frames (end of a file, a stopped camera).
    func endOfStream(at index: Int, in context: isolated RenderContext)
}

extension ImageInput {
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        try receive(picture.pixels(in: context), at: index, in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {}
}
