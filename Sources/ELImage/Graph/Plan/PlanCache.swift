/// A node's compiled plan (`GraphPlan`) and the route its latest picture took: held by its
/// `OutputTargets`, compiled again only when the wiring changed (`GraphPlan.isCurrent`).
final class PlanCache: Sendable {
    /// Where a picture went.
    enum Route: Sendable {
        /// Uploaded, not converted: the conversion runs in the pass of the line's sink.
        case fused(ConversionRecipe, line: FusableLine)
        /// Uploaded as an RGBA frame and delivered to every target; the reason the line was not
        /// taken, when there is one.
        case separate(NotFused?)
    }

    private struct CacheState {
        var plan: GraphPlan?
        var route: Route?
        /// How many times a plan was compiled for these outputs.
        var compilations = 0
    }

    private let state = Locked(CacheState())

    /// The plan for `outputs` as they are wired now: the cached one, or a new walk.
    func plan(for outputs: OutputTargets) -> GraphPlan {
        if let plan = state.withLock({ $0.plan }), plan.isCurrent { return plan }
        let plan = GraphPlan(walking: outputs)
        state.withLock { state in
            state.plan = plan
            state.compilations += 1
        }
        return plan
    }

    /// Remembers the route of the latest picture.
    func took(_ route: Route) {
        state.withLock { $0.route = route }
    }

    /// The plan and the latest route, for `--explain`; nil before the first picture.
    var latest: (plan: GraphPlan, route: Route)? {
        state.withLock { state in state.plan.flatMap { plan in state.route.map { (plan, $0) } } }
    }

    /// How many times a plan was compiled (once for each wiring that saw a picture).
    var compilations: Int { state.withLock { $0.compilations } }

    /// Forgets the plan and the route: the stream ended, nothing is kept alive for it.
    func endOfStream() {
        state.withLock { state in state = CacheState(compilations: state.compilations) }
    }

    /// Forgets the plan and the route (the wiring of these outputs changed).
    func forget() {
        state.withLock { state in state = CacheState(compilations: state.compilations) }
    }
}
