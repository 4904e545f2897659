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
        /// The fused line's agreement with the latest pictures' format (for `plan`).
        var agreement: (format: PictureFormat, agreed: Result<LineAgreement, NotFused>)?
        var route: Route?
        /// How many times a plan was compiled for these outputs, and a line agreed with a format.
        var compilations = 0
        var agreements = 0
    }

    private let state = Locked(CacheState())

    /// The plan for `outputs` as they are wired now: the cached one, or a new walk.
    func plan(for outputs: OutputTargets) -> GraphPlan {
        if let plan = state.withLock({ $0.plan }), plan.isCurrent { return plan }
        let plan = GraphPlan(walking: outputs)
        state.withLock { state in
            state.plan = plan
            state.agreement = nil
            state.compilations += 1
        }
        return plan
    }

    /// The agreement of the current plan's `line` with pictures of `format`: the one made for the
    /// last picture when its format was the same, else a new one.
    func agreement(of line: FusableLine, with format: PictureFormat) -> Result<LineAgreement, NotFused> {
        if let cached = state.withLock({ $0.agreement }), cached.format == format { return cached.agreed }
        let agreed = LineAgreement.agree(line, format: format)
        state.withLock { state in
            state.agreement = (format, agreed)
            state.agreements += 1
        }
        return agreed
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

    /// How many times the plan's line was agreed with a pictures' format (once for each plan and
    /// format that came).
    var agreements: Int { state.withLock { $0.agreements } }

    /// Forgets the plan and the route: the stream ended, nothing is kept alive for it.
    func endOfStream() {
        state.withLock { state in state = CacheState(compilations: state.compilations, agreements: state.agreements) }
    }

    /// Forgets the plan and the route (the wiring of these outputs changed).
    func forget() {
        state.withLock { state in state = CacheState(compilations: state.compilations, agreements: state.agreements) }
    }
}
