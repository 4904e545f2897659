/// A target that only needs to know a frame went by (its size and time), never its pixels: a
/// counter, a check of the input's size. A fused line (`FusedConversionPlan`) may pass such
/// targets (fan-out to observers does not stop fusion): they hear of each frame through `observe`
/// before the line's sink takes it, instead of getting a frame that is never made.
package protocol FrameObserver: PlannedStage {
    /// A frame of `width` x `height` at `timestamp` went by where this target is connected.
    func observe(width: Int, height: Int, timestamp: MediaTime, in context: isolated RenderContext) throws
}
