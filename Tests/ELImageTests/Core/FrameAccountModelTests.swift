import ELImage
import Testing

/// `FrameAccount` chains the hops' own counts: every frame the source made is delivered or
/// dropped once, where and why, repeats beside; a frame lost between two hops is counted too.
@Suite("FrameAccount: every frame counted once, hop by hop")
struct FrameAccountModelTests {
    static var source: SourceStatistics {
        var statistics = SourceStatistics()
        statistics.produced = 10
        statistics.delivered = 8
        statistics.countDrop(.late)
        statistics.countDrop(.late)
        return statistics
    }

    @Test("The source's drops, a constant rate's repeats and drops, the output's queue: the counts add up and say where")
    func chainedHops() {
        let rate = FrameHop(name: "the constant frame rate", framesIn: 8, passedOn: 9, repeated: 2, drops: [.init(1, "another frame took its place")])
        let queue = FrameHop(name: "out.y4m", framesIn: 9, passedOn: 8, drops: [.init(1, "the queue was full"), .init(0, "never")])
        let account = FrameAccount(hops: [FrameHop(source: Self.source), rate, queue])
        #expect(account.produced == 10 && account.delivered == 8 && account.repeated == 2 && account.dropped == 4)
        #expect(account.addsUp)
        #expect(queue.drops.count == 1, "a reason with no frames is left out")
        #expect(account.description == "10 frames made: 8 delivered (2 of them repeated), 4 dropped (2 at the input: too late for real-time pacing, "
                + "1 at the constant frame rate: another frame took its place, 1 at out.y4m: the queue was full)")
    }

    @Test("Frames one hop passed on and the next never counted are lost between them, not left out")
    func gapBetweenHops() {
        let output = FrameHop(name: "the encoder", framesIn: 5, passedOn: 5)
        let account = FrameAccount(hops: [FrameHop(source: Self.source), output])
        #expect(account.addsUp)
        #expect(account.drops.last == .init(place: "between the input and the encoder", reason: "lost on the way", frames: 3))
    }

    @Test("A live account whose frames are still on their way does not add up yet")
    func framesOnTheirWay() {
        let output = FrameHop(name: "the encoder", framesIn: 8, passedOn: 6)
        #expect(!FrameAccount(hops: [FrameHop(source: Self.source), output]).addsUp)
    }
}
