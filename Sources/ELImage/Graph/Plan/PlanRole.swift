/// What a node is to the graph plan (`GraphPlan`): each node declares it (`PlannedStage`), so
/// the plan never asks for concrete types.
package enum PlanRole: Sendable {
    /// Per-pixel colour operations from input 0 to `outputs`, in order: a fused pass may run them.
    case colorOperations([any ColorOperation], outputs: OutputTargets)
    /// Nodes wired inside one node: frames go in at `entry` (input 0) and come out where the walk
    /// meets a `.relay` to the group's outputs.
    case group(entry: any ImageInput)
    /// Hands every frame on unchanged to `outputs` (a group's exit).
    case relay(outputs: OutputTargets)
    /// A sink that packs Y'CbCr itself: a fused line may end in it.
    case packingSink(any PackingSink)
    /// Only hears that a frame went by: it may sit beside a fused line.
    case observer(any FrameObserver)
    /// Hands pictures of some sizes on unchanged and draws the others (a crop, a scale): a fused
    /// line goes through it for pictures it keeps as they are.
    case passingOn(any PassesOnUnchanged)
    /// Anything else (blur, a blend, a custom shader, an RGBA sink): runs its own passes,
    /// and a fused line cannot go through it. Its outputs, if any, are planned on their own.
    case opaque(outputs: OutputTargets?)

    /// The role `node` declares; a node that declares none is a colour operation when it is one
    /// (`ColorOperation`, e.g. a `PointFilter` of yours), passing on when it may keep pictures as
    /// they are (`PassesOnUnchanged`), and opaque otherwise.
    init(of node: any ImageInput) {
        if let stage = node as? any PlannedStage {
            self = stage.planRole
        } else if let operation = node as? any ColorOperation & ImageOutput {
            self = .colorOperations([operation], outputs: operation.outputs)
        } else if let passing = node as? any PassesOnUnchanged {
            self = .passingOn(passing)
        } else {
            self = .opaque(outputs: (node as? any ImageOutput)?.outputs)
        }
    }
}

/// A node that tells the graph plan what it is (`PlanRole`) and how to name it when the plan is
/// printed (`elimage run --explain`).
package protocol PlannedStage: ImageInput {
    /// What the node is to the plan.
    var planRole: PlanRole { get }
}

/// A node that says, for a printed plan, what it does with each frame: its passes on the render
/// thread, the threads it owns. Nodes without it are named by their type.
package protocol PlanDescribing: AnyObject {
    /// One line, e.g. "2 passes (separable, 13 taps)" or "packs I420, reads back on ELImage.encoder".
    var planSummary: String { get }
}

extension PackingSink {
    package var planRole: PlanRole { .packingSink(self) }
}

extension FrameObserver {
    package var planRole: PlanRole { .observer(self) }
}
