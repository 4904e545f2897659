extension ImageOutput {
    /// Sends a CPU picture through the graph: uploaded and not yet converted
    /// (`ConversionRecipe`) when the graph's plan (`GraphPlan`, compiled once per wiring) is a
    /// fused line that pictures of this format take (`LineAgreement`, agreed once per plan and
    /// format) and `fusing` is true, so that the line's colour filters run
    /// in the conversion's pass and its sink packs straight from the planes; else uploaded and
    /// converted to an RGBA frame (turned by `orientation`), in half floats when a sink below packs
    /// more than 8 bits (`GraphPlan.feedsHighDepthSink`). Either way it goes to every target.
    package func deliver(_ buffer: PixelBuffer, orientation: Orientation, fusing: Bool = true,
                         in context: isolated RenderContext) throws {
        let plans = outputs.plans
        let plan = plans.plan(for: outputs)
        var reason: NotFused?
        switch plan.line {
        case .success(let line) where fusing:
            switch plans.agreement(of: line, with: PictureFormat(buffer, orientation: orientation)) {
            case .success(let agreement):
                switch try ConversionRecipe.make(line: line, agreement: agreement, buffer: buffer, in: context) {
                case .success(let recipe):
                    plans.took(.fused(recipe, line: line))
                    deliver(Picture(recipe), in: context)
                    return
                case .failure(let notFused):
                    reason = notFused
                }
            case .failure(let notFused):
                reason = notFused
            }
        case .success:
            reason = NotFused(reason: "this source does not fuse passes (`fusesPasses` is false)")
        case .failure(let notFused):
            reason = notFused
        }
        plans.took(.separate(reason))
        deliver(try context.makeFrame(from: buffer, orientation: orientation, halfFloat: plan.feedsHighDepthSink), in: context)
    }
}
