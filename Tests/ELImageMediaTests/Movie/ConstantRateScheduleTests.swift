import ELImage
import ELImageMedia
import ELImageTestSupport
import Testing

/// The constant-rate schedule on hand-made timestamps: which slots each frame fills.
@Suite("ConstantRateSchedule", .closesContexts)
struct ConstantRateScheduleTests {
    /// The slots each frame fills, for frames at `milliseconds`.
    func run(_ milliseconds: [Int64], rate: Y4MHeader.Ratio) -> (slots: [Range<Int64>], schedule: ConstantRateSchedule) {
        var schedule = ConstantRateSchedule(rate: rate)
        var filled: [Range<Int64>] = []
        for time in milliseconds {
            let slots = schedule.arrive(at: MediaTime(value: time, timescale: 1000))
            if time != milliseconds.first { filled.append(slots) }
        }
        filled.append(schedule.finish())
        return (filled, schedule)
    }

    @Test("Frames on the grid fill one slot each; a 30000/1001 clip keeps its exact times")
    func onTheGrid() {
        let (slots, schedule) = run([0, 33, 67, 100, 133], rate: Y4MHeader.Ratio(30000, 1001))
        #expect(slots == [0..<1, 1..<2, 2..<3, 3..<4, 4..<5])
        #expect(schedule.duplicated == 0 && schedule.dropped == 0 && schedule.emitted == 5)
        #expect(schedule.time(ofSlot: 3) == MediaTime(value: 3003, timescale: 30000))
    }

    @Test("A gap repeats the frame before it; two frames in one slot drop the first")
    func gapsAndCrowds() {
        // 25 fps: slots of 40 ms. Frame 2 comes 120 ms late; frames 3 and 4 share slot 5.
        let (slots, schedule) = run([0, 40, 200, 210, 220, 240], rate: 25)
        // Slots 0, 1, 5, 5 (5.25), 6 (5.5 rounds up), 6.
        #expect(slots == [0..<1, 1..<5, 5..<5, 5..<6, 6..<6, 6..<7])
        #expect(schedule.duplicated == 3)
        #expect(schedule.dropped == 2)
        #expect(schedule.emitted == 7)
    }

    @Test("Halves round up; a stream that starts late starts at its own slot")
    func rounding() {
        var schedule = ConstantRateSchedule(rate: 25)
        #expect(schedule.slot(of: MediaTime(value: 20, timescale: 1000)) == 1)
        #expect(schedule.slot(of: MediaTime(value: 19, timescale: 1000)) == 0)
        #expect(schedule.slot(of: MediaTime(value: -20, timescale: 1000)) == 0)
        #expect(schedule.arrive(at: MediaTime(value: 10, timescale: 1)).isEmpty)
        #expect(schedule.finish() == 250..<251)
    }

    @Test("A jump of more than an hour is not filled with repeats: the frame before it is shown once")
    func timestampJump() {
        var schedule = ConstantRateSchedule(rate: 25)
        #expect(schedule.arrive(at: MediaTime(value: 0, timescale: 1000)).isEmpty)
        #expect(schedule.arrive(at: MediaTime(value: 40, timescale: 1000)) == 0..<1)
        // Ten years later.
        let later = MediaTime(value: 40 + 10 * 365 * 86_400 * 1000, timescale: 1000)
        #expect(schedule.arrive(at: later) == 1..<2)
        #expect(schedule.arrive(at: MediaTime(value: later.value + 40, timescale: 1000)).count == 1)
        #expect(schedule.duplicated == 0 && schedule.dropped == 0)
        // Exactly an hour still repeats.
        var pause = ConstantRateSchedule(rate: 25)
        _ = pause.arrive(at: .zero)
        #expect(pause.arrive(at: MediaTime(value: 3600, timescale: 1)).count == 90_000)
    }
}
