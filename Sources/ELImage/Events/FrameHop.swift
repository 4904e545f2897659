/// One place a frame passes on its way from a source to an output, as it counted them: the
/// source itself, a blend, an output's queue, an encoder, a network link. Every frame that came
/// in was passed on or dropped (for a reason it names); a constant-rate hop may also pass a frame
/// on more than once. Once the run has ended, `framesIn + repeated == passedOn + dropped`.
public struct FrameHop: Sendable, Equatable {
    /// Frames dropped at the hop for one reason.
    public struct Drop: Sendable, Equatable {
        /// Why, e.g. "too late for real-time pacing", "the queue was full".
        public var reason: String
        public var frames: Int

        public init(_ frames: Int, _ reason: String) {
            self.frames = frames
            self.reason = reason
        }
    }

    /// The hop, as a user knows it: "the input", "the queue of out.mp4", "the stream".
    public var name: String
    /// Frames that came in (for a source: the pictures it made).
    public var framesIn: Int
    /// Frames it passed on (for an output's last hop: the frames in the output).
    public var passedOn: Int
    /// Frames it passed on again to fill a gap (a constant frame rate).
    public var repeated: Int
    /// The frames it dropped, by reason (reasons with none left out).
    public var drops: [Drop]

    /// - Parameters:
    ///   - name: the hop, as a user knows it.
    ///   - framesIn: frames that came in.
    ///   - passedOn: frames passed on.
    ///   - repeated: frames passed on again to fill gaps.
    ///   - drops: the frames dropped by reason; those of zero frames are left out.
    public init(name: String, framesIn: Int, passedOn: Int, repeated: Int = 0, drops: [Drop] = []) {
        self.name = name
        self.framesIn = framesIn
        self.passedOn = passedOn
        self.repeated = repeated
        self.drops = drops.filter { $0.frames > 0 }
    }

    /// The frames dropped, all reasons together.
    public var dropped: Int { drops.reduce(0) { $0 + $1.frames } }

    /// The source's run as the first hop: the pictures it made, those the graph received, and
    /// why it dropped the others.
    public init(source statistics: SourceStatistics, name: String = "the input") {
        self.init(name: name, framesIn: statistics.produced, passedOn: statistics.delivered,
                  drops: SourceStatistics.DropReason.allCases.map { Drop(statistics.droppedBy[$0] ?? 0, $0.rawValue) })
    }
}

/// A node that counts the frames through it as hops of a `FrameAccount`: a blend, an output, an
/// encoder and its stream.
public protocol FrameAccounting: AnyObject, Sendable {
    /// Its hops, in the frames' order (an encoder streaming: its queue, then the link). Read after
    /// the run has ended for the final counts; live before.
    var frameHops: [FrameHop] { get }
}
