extension ImageOutput {
    /// Sends a CPU picture through the graph: along the fused line of the graph's plan
    /// (`GraphPlan`, compiled once per wiring) when the picture can take it (`FusedConversionPlan`)
    /// and `fusing` is true, else uploaded and converted to an RGBA frame (turned by
    /// `orientation`) and delivered to every target; in half floats when a sink below packs more
    /// than 8 bits (`GraphPlan.feedsHighDepthSink`). End-of-stream later follows the same route.
    package func deliver(_ buffer: PixelBuffer, orientation: Orientation, fusing: Bool = true,
                         in context: isolated RenderContext) throws {
        let plans = outputs.plans
        let plan = plans.plan(for: outputs)
        var reason: NotFused?
        switch plan.line {
        case .success(let line) where fusing:
            switch FusedConversionPlan.make(line: line, buffer: buffer, orientation: orientation, in: context) {
            case .success(let fused):
                plans.took(.fused(fused))
                try fused.run(buffer, in: context)
                return
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
