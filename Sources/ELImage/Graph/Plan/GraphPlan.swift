/// The graph below a node's outputs, walked once when it is wired and kept until it is rewired
/// (every `OutputTargets` the walk went through counts its changes): the one walk of the graph
/// that fusion and `--explain` read.
///
/// The walk asks each node its `PlanRole`. From the walked tree the plan derives the line a Y'CbCr
/// picture can take unconverted (`FusableLine`): colour operations (none or more) in a straight
/// line (groups and their relays are transparent) ending in one `PackingSink` on input 0, with
/// observers beside it anywhere. Whether a given picture takes it (its format, size, orientation,
/// the sink's packing now) is decided per picture by `ConversionRecipe.make`, which costs no walk.
package struct GraphPlan: Sendable {
    /// A node met by the walk, with the targets it hands frames to.
    package struct Stage: Sendable {
        /// The node, as the plan prints it: type and a short identity (`NodeFailure.name`).
        package let name: String
        /// The input it is connected on.
        package let index: Int
        package let node: any ImageInput
        package let role: PlanRole
        /// Its targets, walked (a group's targets are those of its exit relay, spliced in).
        package let targets: [Stage]
        /// Whether the node was met before in this walk (a second input of a blend, a cycle):
        /// its targets are listed there.
        package let repeated: Bool
    }

    /// The outputs the walk went through and the versions it saw.
    private let walked: [WalkedOutputs]
    /// The targets of the node the plan is for.
    package let targets: [Stage]
    /// The line a Y'CbCr picture can take fused, or why there is none.
    package let line: Result<FusableLine, NotFused>

    /// Walks the graph below `outputs`.
    init(walking outputs: OutputTargets) {
        var walk = Walk()
        targets = walk.stages(for: outputs, depth: 0)
        walked = walk.walked
        line = FusableLine.derive(from: targets)
    }

    /// Whether a sink anywhere below packs samples of more than 8 bits now (a 10-bit recording, a
    /// C420p10 Y4M, 16-bit PNGs): pictures are then uploaded into half-float frames even from
    /// 8-bit sources, so that the filters' results keep their precision up to it.
    package var feedsHighDepthSink: Bool {
        func deep(_ stages: [Stage]) -> Bool {
            stages.contains { stage in
                if case .packingSink(let sink) = stage.role, sink.packing?.format.isHighDepth == true { return true }
                return !stage.repeated && deep(stage.targets)
            }
        }
        return deep(targets)
    }

    /// Whether the graph is still wired as it was walked (no connection made or removed since).
    var isCurrent: Bool { walked.allSatisfy { $0.outputs?.isUnchanged(since: $0.version) == true } }

    /// Outputs the walk went through, held weakly: the plan lives in the first of them (the
    /// source's), which must not keep itself alive.
    private struct WalkedOutputs: Sendable {
        weak let outputs: OutputTargets?
        let version: UInt64
    }

    /// The walk's memory: the nodes met so far.
    private struct Walk {
        var met: Set<ObjectIdentifier> = []
        var walked: [WalkedOutputs] = []

        mutating func stages(for outputs: OutputTargets, depth: Int) -> [Stage] {
            let (connections, version) = outputs.versioned
            walked.append(WalkedOutputs(outputs: outputs, version: version))
            return connections.map { stage(for: $0, depth: depth) }
        }

        mutating func stage(for connection: OutputTargets.Connection, depth: Int) -> Stage {
            let node = connection.target
            let role = PlanRole(of: node)
            let repeated = !met.insert(ObjectIdentifier(node)).inserted || depth > 256
            var targets: [Stage] = []
            if !repeated {
                switch role {
                case .colorOperations(_, let outputs), .relay(let outputs):
                    targets = stages(for: outputs, depth: depth + 1)
                case .passingOn(let node):
                    targets = stages(for: node.outputs, depth: depth + 1)
                case .group(let entry):
                    targets = [stage(for: OutputTargets.Connection(target: entry, index: 0), depth: depth + 1)]
                case .opaque(let outputs?):
                    targets = stages(for: outputs, depth: depth + 1)
                case .opaque(nil), .packingSink, .observer:
                    break
                }
            }
            return Stage(name: NodeFailure.name(of: node), index: connection.index, node: node, role: role, targets: targets, repeated: repeated)
        }
    }
}

/// Why a picture does not take a fused line: a sentence for `--explain`.
package struct NotFused: Error, Sendable, CustomStringConvertible {
    package let reason: String
    package var description: String { reason }
}

/// A straight line of colour operations into a sink that packs Y'CbCr, with observers beside it
/// anywhere: the shape of graph in which a Y'CbCr picture is handed on uploaded and not converted
/// (`ConversionRecipe`), and the sink whose packing the upload agrees with.
package struct FusableLine: Sendable {
    /// The colour operations, first to last.
    package let operations: [any ColorOperation]
    /// Filters on the line that keep some pictures as they are (a crop, a scale): the line is
    /// taken by a picture only when each of them passes it on unchanged.
    package let passing: [any PassesOnUnchanged]
    /// The sink the line ends in (on its input 0).
    package let sink: any PackingSink
    /// The sink's packing and chroma siting, agreed when the plan is compiled (a sink's packing is
    /// fixed for its life): the upload is made for them.
    package let packing: (format: PixelFormat, chromaDownsampling: ChromaDownsampling)?
    package let packingChromaLocation: ChromaLocation?

    init(operations: [any ColorOperation], passing: [any PassesOnUnchanged], sink: any PackingSink) {
        self.operations = operations
        self.passing = passing
        self.sink = sink
        packing = sink.packing
        packingChromaLocation = sink.packingChromaLocation
    }

    /// The line through `targets`, if they form one.
    static func derive(from targets: [GraphPlan.Stage]) -> Result<FusableLine, NotFused> {
        var operations: [any ColorOperation] = []
        var passing: [any PassesOnUnchanged] = []
        var previous: String?  // the last node the line went through
        var level = targets
        while true {
            let next = level.filter { if case .observer = $0.role { false } else { true } }
            guard let stage = next.first else {
                return .failure(NotFused(reason: previous.map { "\($0) has no target but observers" }
                                         ?? "nothing but observers is connected"))
            }
            guard next.count == 1 else {
                return .failure(NotFused(reason: "fan-out to \(next.map(\.name).joined(separator: " and ")) "
                                         + "(a fused line has one target that is not an observer)"))
            }
            guard stage.index == 0, !stage.repeated else {
                return .failure(NotFused(reason: "\(stage.name) takes frames on input \(stage.index) (a blend or mix)"))
            }
            if case .relay = stage.role {} else { previous = stage.name }
            switch stage.role {
            case .colorOperations(let more, _):
                operations += more
                guard operations.count <= Recipe.mostPieces else {
                    return .failure(NotFused(reason: "more than \(Recipe.mostPieces) colour operations in one line"))
                }
            case .passingOn(let node):
                passing.append(node)
            case .group, .relay, .observer:  // (observers are beside the line)
                break
            case .packingSink(let sink):
                // (No colour operation at all: a plain conversion, fused where the sink's packing
                // gains from it, which `ConversionRecipe.make` decides per picture.)
                return .success(FusableLine(operations: operations, passing: passing, sink: sink))
            case .opaque:
                return .failure(NotFused(reason: "\(stage.name) is not a per-pixel colour filter or a Y'CbCr sink"))
            }
            level = stage.targets
        }
    }
}
