/// Several filters as one node with one input and one output.
///
/// ```swift
/// let look = FilterGroup([Brightness(0.05), Contrast(1.2), GaussianBlur(sigma: 2), Saturation(1.2)])
/// camera --> look --> encoder
/// ```
///
/// A group made from a list runs the filters in order. Runs of consecutive colour operations
/// (`ColorOperation`: brightness, contrast, ..., lookup table, grayscale) are fused into one
/// `ColorChain` pass each, unless `fusing` is false; the example above draws three passes, not five
/// (the blur has two). A group can also wrap a sub-graph you wire yourself, from its entry node to
/// its exit node.
public final class FilterGroup: ImageOutput, ImageInput, PreparableFilter, PlannedStage {
    public let inputSlots = InputSlots(count: 1)
    public let outputs = OutputTargets()
    /// The filters the group was made from.
    public let filters: [any ImageInput]
    /// The nodes that actually run, in order (fused chains in place of colour operations).
    public let stages: [any ImageInput]
    private let entry: any ImageInput

    /// Chains `filters` in order.
    /// - Parameters:
    ///   - filters: the filters, first to last.
    ///   - fusing: run consecutive colour operations as one pass (default).
    /// - Throws: `ELImageError.invalidInput` for an empty list.
    public init(_ filters: [any ImageOutput & ImageInput], fusing: Bool = true) throws {
        guard let first = filters.first else {
            throw ELImageError.invalidInput(what: "a filter group needs at least one filter",
                                            hint: "pass the filters to run, in order")
        }
        var stages: [any ImageOutput & ImageInput] = []
        var pending: [any ColorOperation] = []
        func flush() {
            guard !pending.isEmpty else { return }
            stages.append(ColorChain(pending))
            pending = []
        }
        for filter in filters {
            if fusing, let operation = filter as? any ColorOperation {
                pending.append(operation)
            } else {
                flush()
                stages.append(filter)
            }
        }
        flush()
        // A lone operation runs as itself, not as a chain of one.
        if filters.count == 1 { stages = [first] }
        for (source, target) in zip(stages, stages.dropFirst()) { source.addTarget(target) }
        self.filters = filters
        self.stages = stages
        entry = stages[0]
        stages[stages.count - 1].addTarget(Relay(to: outputs))
        entry.inputSlots.claim(0)
    }

    /// Wraps a sub-graph already wired from `entry` to `exit`: frames into the group go to the entry's
    /// input 0, and frames out of `exit` come out of the group.
    public init(entry: any ImageInput, exit: any ImageOutput) {
        filters = [entry]
        stages = [entry]
        self.entry = entry
        exit.addTarget(Relay(to: outputs))
        entry.inputSlots.claim(0)
    }

    /// Compiles every stage's programs now; see `PreparableFilter`.
    public func prepare(in context: isolated RenderContext) throws {
        for stage in stages {
            if let stage = stage as? any PreparableFilter { try stage.prepare(in: context) }
        }
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        try entry.receive(frame, at: 0, in: context)
    }

    /// Hands the picture to the entry as it is (a recipe stays one through the group).
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        try entry.receive(picture, at: 0, in: context)
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        if index == 0 { entry.endOfStream(at: 0, in: context) }
    }

    /// A group to the graph plan: frames go in at its entry; the walk comes out through its exit's
    /// relay, so a group of colour operations is part of a fused line like the operations alone.
    package var planRole: PlanRole { .group(entry: entry) }

    /// Receives the exit's frames and sends them to the group's targets.
    private final class Relay: PlannedStage {
        let inputSlots = InputSlots(count: 1)
        let outputs: OutputTargets

        init(to outputs: OutputTargets) {
            self.outputs = outputs
        }

        var planRole: PlanRole { .relay(outputs: outputs) }

        func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
            outputs.deliver(frame, in: context)
        }

        func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
            outputs.deliver(picture, from: self, in: context)
        }

        func endOfStream(at index: Int, in context: isolated RenderContext) {
            outputs.deliverEndOfStream(in: context)
        }
    }
}
