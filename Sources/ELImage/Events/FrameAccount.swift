/// One output's account of the frames its source made: each was delivered into the output or
/// dropped at one hop for one reason, and a constant-rate output's repeats are counted beside, so
/// that `produced + repeated == delivered + dropped`. A frame that one hop passed on and the next
/// did not count as coming in was lost between them: that is counted too, never left out.
///
/// ```swift
/// movie --> Beauty() --> encoder
/// try await movie.run(on: context)
/// _ = try await encoder.finish()
/// let account = FrameAccount(source: movie.statistics, through: encoder)
/// print(account)   // "132 frames made: 59 delivered, 73 dropped (73 at the input: too late for real-time pacing)"
/// ```
public struct FrameAccount: Sendable, Equatable, CustomStringConvertible {
    /// Frames dropped at one hop for one reason.
    public struct Drop: Sendable, Equatable {
        /// Where, as said: "at the input", "between the input and the stream".
        public var place: String
        /// Why.
        public var reason: String
        public var frames: Int

        public init(place: String, reason: String, frames: Int) {
            self.place = place
            self.reason = reason
            self.frames = frames
        }
    }

    /// Frames the source made.
    public let produced: Int
    /// Frames in the output: what its last hop passed on.
    public let delivered: Int
    /// Frames the output holds twice or more (a constant frame rate filling gaps).
    public let repeated: Int
    /// The frames dropped, where and why, in the frames' order.
    public let drops: [Drop]

    /// The frames dropped, everywhere.
    public var dropped: Int { drops.reduce(0) { $0 + $1.frames } }

    /// Whether every frame is counted once: `produced + repeated == delivered + dropped`. False
    /// only while frames are still on their way (a live account) or when a hop miscounted.
    public var addsUp: Bool { produced + repeated == delivered + dropped }

    /// The account of `hops`, in the frames' order from the source's own. A hop that took in
    /// fewer frames than the one before passed on counts the rest as lost between them.
    public init(hops: [FrameHop]) {
        var drops: [Drop] = []
        var previous: FrameHop?
        for hop in hops {
            if let previous, previous.passedOn > hop.framesIn {
                drops.append(Drop(place: "between \(previous.name) and \(hop.name)", reason: "lost on the way",
                                  frames: previous.passedOn - hop.framesIn))
            }
            drops += hop.drops.map { Drop(place: "at \(hop.name)", reason: $0.reason, frames: $0.frames) }
            previous = hop
        }
        produced = hops.first?.framesIn ?? 0
        delivered = hops.last?.passedOn ?? 0
        repeated = hops.reduce(0) { $0 + $1.repeated }
        self.drops = drops
    }

    /// The account of `source`'s frames into `output`, through `nodes` between them that count
    /// (blends), in order.
    public init(source: SourceStatistics, through nodes: [any FrameAccounting] = [], into output: any FrameAccounting) {
        self.init(hops: [FrameHop(source: source)] + nodes.flatMap(\.frameHops) + output.frameHops)
    }

    /// "132 frames made: 59 delivered, 73 dropped (73 at the input: too late for real-time
    /// pacing)"; repeats after the delivered ("250 delivered (20 of them repeated), ...").
    public var description: String {
        var text = "\(produced) frame\(produced == 1 ? "" : "s") made: \(delivered) delivered"
        if repeated > 0 { text += " (\(repeated) of them repeated)" }
        text += ", \(dropped) dropped"
        if !drops.isEmpty { text += " (\(dropList))" }
        return text
    }

    /// "73 at the input: too late for real-time pacing, 5 at the stream: the link was slower".
    public var dropList: String {
        drops.map { "\($0.frames) \($0.place): \($0.reason)" }.joined(separator: ", ")
    }
}
