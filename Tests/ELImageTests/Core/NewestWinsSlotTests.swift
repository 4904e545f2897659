import Dispatch
@testable import ELImage
import Foundation
import Testing

@Suite("NewestWinsSlot")
struct NewestWinsSlotTests {
    @Test("a put while an element waits replaces it and counts one drop; take hands out the newest")
    func newestWins() {
        let slot = NewestWinsSlot<Int>()
        #expect(slot.put(1) == .queued)
        #expect(slot.put(2) == .replacedOlder)
        #expect(slot.put(3) == .replacedOlder)
        #expect(slot.dropped == 2)
        #expect(slot.take() == 3)
        #expect(slot.take(waitingUntil: Date(timeIntervalSinceNow: 0.05)) == nil)
    }

    @Test("a closed slot hands out what waits, then nil; puts are refused; discarding counts a drop")
    func closing() {
        let slot = NewestWinsSlot<Int>()
        slot.put(7)
        #expect(slot.close() == false)
        #expect(slot.put(8) == .closed)
        #expect(slot.take() == 7)
        #expect(slot.take() == nil)

        let discarded = NewestWinsSlot<Int>()
        discarded.put(1)
        #expect(discarded.close(discarding: true))
        #expect(discarded.take() == nil)
        #expect(discarded.dropped == 1)
    }

    @Test("with waitForResult the producer loses nothing: it returns only after the consumer finished its element")
    func waitForResult() async {
        let slot = NewestWinsSlot<Int>()
        let finished = Locked<[Int]>([])
        let consumerDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            while let element = slot.take() {
                Thread.sleep(forTimeInterval: 0.002)
                finished.withLock { $0.append(element) }
                slot.finish()
            }
            consumerDone.signal()
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                for element in 0..<20 {
                    #expect(slot.put(element, waitForResult: true) == .queued)
                    // Returned: the consumer has finished this element.
                    #expect(finished.withLock { $0.last } == element)
                }
                slot.close()
                consumerDone.wait()
                done.resume()
            }
        }
        #expect(finished.withLock { $0 } == Array(0..<20))
        #expect(slot.dropped == 0)
    }

    @Test("close wakes a consumer waiting with no deadline")
    func closeWakesConsumer() async {
        let slot = NewestWinsSlot<Int>()
        let result = await withCheckedContinuation { (done: CheckedContinuation<Int?, Never>) in
            DispatchQueue.global().async { done.resume(returning: slot.take()) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { slot.close() }
        }
        #expect(result == nil)
    }
}
