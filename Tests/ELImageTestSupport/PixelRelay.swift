import ELImage

/// Hands on each frame it gets: a node that takes pixels, so a recipe before it (`Picture`) is
/// drawn there. Put between filters, it makes them run as separate passes, the reference that the
/// fused passes are compared with.
package final class PixelRelay: ImageInput, ImageOutput {
    package let inputSlots = InputSlots(count: 1)
    package let outputs = OutputTargets()

    package init() {}

    package func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        deliver(frame, in: context)
    }

    package func endOfStream(at index: Int, in context: isolated RenderContext) {
        deliverEndOfStream(in: context)
    }
}

/// `nodes` with a `PixelRelay` after each: they run as separate passes.
package func separately(_ nodes: [any ImageOutput & ImageInput]) -> [any ImageOutput & ImageInput] {
    nodes.flatMap { [$0, PixelRelay()] }
}
