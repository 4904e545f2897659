import ELImage
@testable import ELImageMedia
import ELImageTestSupport
import Testing

// Times come from files, so sums must hold at the limits of Int64 (a damaged MP4 once trapped
// with an arithmetic overflow when its start and duration were added).

@Suite("MediaTimeMath", .closesContexts)
struct MediaTimeMathTests {
    @Test func sameTimescaleIsExact() {
        let sum = MediaTimeMath.checkedSum(MediaTime(value: 1024, timescale: 12800), MediaTime(value: 512, timescale: 12800))
        #expect(sum?.value == 1536 && sum?.timescale == 12800)
        let difference = MediaTimeMath.checkedDifference(MediaTime(value: 10, timescale: 25), MediaTime(value: 12, timescale: 25))
        #expect(difference?.value == -2)
    }

    @Test func mixedTimescalesUseTheFinerOneRounded() {
        // 1/3 s + 1/1000 s in 1/1000 s ticks: 333.33... + 1, rounded to 334.
        let sum = MediaTimeMath.checkedSum(MediaTime(value: 1, timescale: 3), MediaTime(value: 1, timescale: 1000))
        #expect(sum == MediaTime(value: 334, timescale: 1000))
        #expect(sum?.timescale == 1000)
        // Halves round away from zero: -1/2 s in 1/3 s... -1.5 ticks becomes -2.
        let negative = MediaTimeMath.checkedSum(MediaTime(value: -1, timescale: 2), MediaTime(value: 0, timescale: 3))
        #expect(negative?.value == -2)
    }

    @Test func overflowIsNilWhenCheckedAndClampedOtherwise() {
        let huge = MediaTime(value: .max - 10, timescale: 1000)
        #expect(MediaTimeMath.checkedSum(huge, MediaTime(value: 40, timescale: 1000)) == nil)
        #expect(MediaTimeMath.sum(huge, MediaTime(value: 40, timescale: 1000)).value == .max)
        // Rescaling to a finer timescale overflows too.
        #expect(MediaTimeMath.checkedSum(MediaTime(value: .max / 2, timescale: 1), MediaTime(value: 0, timescale: 90000)) == nil)
        #expect(MediaTimeMath.sum(MediaTime(value: .min / 2, timescale: 1), MediaTime(value: 0, timescale: 90000)).value == .min)
        // Negating Int64.min does not fit.
        #expect(MediaTimeMath.checkedDifference(.zero, MediaTime(value: .min, timescale: 1)) == nil)
        #expect(MediaTimeMath.difference(.zero, MediaTime(value: .min, timescale: 1)).value == .max)
        #expect(MediaTimeMath.difference(MediaTime(value: .min, timescale: 7), MediaTime(value: .max, timescale: 7)).value == .min)
    }
}
