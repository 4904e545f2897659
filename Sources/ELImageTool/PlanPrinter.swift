import ELImage

/// `elimage run --explain`: at the input's first picture, prints the graph's plan as it runs it
/// (`PlanExplanation`: the nodes, their passes, the fused line or why there is none, the
/// threads) and the renderer that draws it. An observer, so it never changes the plan it prints.
final class PlanPrinter: ImageInput, FrameObserver {
    let inputSlots = InputSlots()
    private weak let source: (any ImageOutput)?
    private let printed = Locked(false)

    /// - Parameter source: the node whose plan is printed (weak: the printer is its target).
    init(source: any ImageOutput) {
        self.source = source
    }

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        try observe(width: frame.width, height: frame.height, timestamp: frame.timestamp, in: context)
    }

    /// Hears of a picture without drawing it.
    func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        try observe(width: picture.width, height: picture.height, timestamp: picture.timestamp, in: context)
    }

    func observe(width: Int, height: Int, timestamp: MediaTime, in context: isolated RenderContext) throws {
        guard !printed.withLock({ done in defer { done = true }; return done }), let source,
              let plan = PlanExplanation(of: source, threads: context.runningThreadNames) else { return }
        let renderer = "renderer: \(context.info.renderer), \(context.info.version)"
        Terminal.say("plan at the first picture (\(width)x\(height)):\n" + plan.description + "\n" + renderer)
    }
}
