/// A target that only needs to know a frame went by (its size and time), never its pixels: a
/// counter, a check of the input's size. It hears of each picture through `observe` without
/// drawing it, so a recipe beside it stays one (fan-out to observers does not stop fusion).
package protocol FrameObserver: PlannedStage {
    /// A frame of `width` x `height` at `timestamp` went by where this target is connected.
    func observe(width: Int, height: Int, timestamp: MediaTime, in context: isolated RenderContext) throws
}
