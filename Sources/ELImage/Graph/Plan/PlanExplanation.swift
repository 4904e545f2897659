/// A printed plan (`elimage run --explain`): the graph below a source as the plan walked it, the
/// route its latest picture took (fused or separate passes, and why), and the threads at work.
///
/// ```
/// MovieInput#3f2a (plan compiled 1 time)
/// ├── CropCheck#91c0 (observer)
/// ├── FilterGroup#77d1: a group of 1 stage
/// │   └── Grayscale#5e02: 1 pass
/// │       └── VideoEncoder#0a4c: packs I420 (matched chroma) on the render thread, reads back on ELImage.encoder
/// └── FrameCounter#c3e8 (observer)
/// latest picture, 1280x720 i420: fused: 1 pass from the uploaded planes: Y'CbCr → grayscale → …
/// threads: ELImage.render, ELImage.movie, ELImage.movie delivery, ELImage.encoder
/// ```
public struct PlanExplanation: Sendable, CustomStringConvertible {
    /// The lines, as printed.
    public let lines: [String]

    public var description: String { lines.joined(separator: "\n") }

    /// The plan of `source`'s outputs and the route of its latest picture, or nil before its first
    /// picture (the route depends on the picture: its format, size and orientation).
    /// - Parameters:
    ///   - source: the head of the graph to explain.
    ///   - threads: the context's running threads (`RenderContext.runningThreadNames`).
    public init?(of source: any ImageOutput, threads: [String]) {
        let cache = source.outputs.plans
        guard let (plan, route) = cache.latest else { return nil }
        var lines = ["\(NodeFailure.name(of: source)) (plan compiled \(cache.compilations) time\(cache.compilations == 1 ? "" : "s"), "
                     + "formats agreed \(cache.agreements) time\(cache.agreements == 1 ? "" : "s"))"]
        Self.append(plan.targets, prefix: "", to: &lines)
        switch route {
        case .fused(let fused, let line):
            lines.append("latest picture: fused, \(fused.summary(along: line))")
        case .separate(let reason):
            lines.append("latest picture: uploaded and converted to RGBA (1 pass), then the nodes above, each with its own passes"
                         + (reason.map { "; not fused: \($0.reason)" } ?? ""))
        }
        lines.append("threads: " + threads.joined(separator: ", "))
        self.lines = lines
    }

    /// The tree of `stages`, one line a node.
    private static func append(_ stages: [GraphPlan.Stage], prefix: String, to lines: inout [String]) {
        for (number, stage) in stages.enumerated() {
            let last = number == stages.count - 1
            if case .relay = stage.role {  // a group's exit: its targets hang under the group's last node
                append(stage.targets, prefix: prefix, to: &lines)
                continue
            }
            var line = prefix + (last ? "└── " : "├── ") + stage.name
            if stage.index != 0 { line += " (input \(stage.index))" }
            line += summary(of: stage) + drawing(of: stage)
            if stage.repeated { line += " (met above)" }
            lines.append(line)
            append(stage.targets, prefix: prefix + (last ? "    " : "│   "), to: &lines)
        }
    }

    /// Where the recipe a filter hands on (`Picture`) is drawn, when its one target that reads
    /// pixels (besides observers, through a group's exit) takes it into its own pass: a sink that
    /// packs 8-bit 4:2:0, a colour filter, or a filter that reads at texel centres after colour.
    private static func drawing(of stage: GraphPlan.Stage) -> String {
        let colour: Bool
        if case .colorOperations = stage.role { colour = true } else { colour = false }
        let handsOnRecipe = colour || (stage.node as? any SinglePassFilter)?.runsInsidePack == true
            || (stage.node as? any PlanDescribing)?.planSummary.contains("hands on its last as a recipe") == true
        guard handsOnRecipe, !stage.repeated, let next = onlyReader(of: stage.targets) else { return "" }
        switch next.role {
        case .packingSink(let sink) where MatchedPack420.takes(sink.packing):
            return "; the last runs inside \(next.name)'s pack"
        case .colorOperations:
            return "; the last runs in one pass with \(next.name)"
        default:
            if colour, let filter = next.node as? any SinglePassFilter, filter.runsInsidePack, filter.reads.runsColorOnReads {
                return "; runs inside \(next.name)'s pass"
            }
            return ""
        }
    }

    /// The one target of `targets` that is not an observer, on input 0, through a group's exit.
    private static func onlyReader(of targets: [GraphPlan.Stage]) -> GraphPlan.Stage? {
        let readers = targets.filter { if case .observer = $0.role { false } else { true } }
        guard readers.count == 1, let reader = readers.first, reader.index == 0, !reader.repeated else { return nil }
        if case .relay = reader.role { return onlyReader(of: reader.targets) }
        return reader
    }

    /// What the node does, as it says (`PlanDescribing`) or as its role shows.
    private static func summary(of stage: GraphPlan.Stage) -> String {
        if let described = stage.node as? any PlanDescribing { return ": " + described.planSummary }
        switch stage.role {
        case .observer: return " (observer)"
        case .colorOperations(let operations, _):
            return ": 1 pass (" + operations.map(\.colorPiece.name).joined(separator: " → ") + ")"
        case .group: return ""
        case .packingSink(let sink):
            return sink.packing.map { ": packs \($0.format.rawValue.uppercased()) (\($0.chromaDownsampling) chroma)" } ?? ": reads RGBA"
        case .passingOn:
            return stage.node is any SinglePassFilter ? ": 1 pass, none for a picture it keeps as it is" : ": no pass for a picture it keeps as it is"
        case .relay, .opaque: return stage.node is any SinglePassFilter ? ": 1 pass" : ""
        }
    }
}
