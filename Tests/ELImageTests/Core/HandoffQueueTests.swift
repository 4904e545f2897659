import Dispatch
@testable import ELImage
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

@Suite("HandoffQueue")
struct HandoffQueueTests {
    /// Runs `body` on a plain thread (the queue's blocking calls are for threads, not tasks).
    private func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in
            DispatchQueue.global().async { done.resume(returning: body()) }
        }
    }

    @Test("items and control messages come out in the order they went in; pop is nil once finished and empty")
    func ordering() {
        let queue = HandoffQueue<Int>(capacity: 8)
        queue.push(1, whenFull: .wait)
        queue.post(-1)
        queue.push(2, whenFull: .wait)
        queue.finish()
        #expect([queue.pop(), queue.pop(), queue.pop(), queue.pop()] == [1, -1, 2, nil])
        #expect(queue.statistics == .init(accepted: 2, rejected: 0, replaced: 0, highWaterMark: 2))
    }

    /// An item whose release the test can see.
    private final class Tracked: Sendable {}

    @Test("a popped item is the consumer's alone: the queue keeps no reference to it (a reused buffer is not copied)")
    func poppedItemsAreReleased() {
        let queue = HandoffQueue<Tracked>(capacity: 4)
        var released: [Bool] = []
        for _ in 0..<3 {
            weak var watched: Tracked?
            do {
                let item = Tracked()
                watched = item
                queue.push(item, whenFull: .wait)
            }
            #expect(watched != nil, "a waiting item is kept by the queue")
            do {
                var popped = queue.pop()
                #expect(popped != nil)
                if var item = popped {
                    popped = nil
                    // The consumer's reference is the only one: a buffer in it is written in place.
                    #expect(isKnownUniquelyReferenced(&item), "the queue still holds the popped item")
                }
            }
            released.append(watched == nil)
        }
        #expect(released == [true, true, true], "items the consumer dropped are still alive")
        queue.close()
    }

    @Test("refuse: a full queue refuses the new item at once and counts it")
    func refuse() {
        let queue = HandoffQueue<Int>(capacity: 2)
        #expect(queue.push(1, whenFull: .refuse) == .queued)
        #expect(queue.push(2, whenFull: .refuse) == .queued)
        #expect(queue.push(3, whenFull: .refuse) == .refused)
        queue.close()
        #expect([queue.pop(), queue.pop(), queue.pop()] == [1, 2, nil])
        #expect(queue.statistics == .init(accepted: 2, rejected: 1, replaced: 0, highWaterMark: 2))
    }

    @Test("replaceOldest: the oldest waiting item gives way to the new one; control messages stay")
    func replaceOldest() {
        let queue = HandoffQueue<Int>(capacity: 1)
        #expect(queue.push(1, whenFull: .replaceOldest) == .queued)
        queue.post(-1)
        #expect(queue.push(2, whenFull: .replaceOldest) == .replacedOlder)
        #expect(queue.push(3, whenFull: .replaceOldest) == .replacedOlder)
        queue.finish()
        #expect([queue.pop(), queue.pop(), queue.pop()] == [-1, 3, nil])
        #expect(queue.statistics == .init(accepted: 3, rejected: 0, replaced: 2, highWaterMark: 1))
    }

    @Test("wait: a producer waits for room and loses nothing; at most capacity items wait")
    func waitForRoom() async {
        let queue = HandoffQueue<Int>(capacity: 2)
        let consumed = await onThread {
            DispatchQueue.global().async {
                for item in 0..<50 { #expect(queue.push(item, whenFull: .wait) == .queued) }
                queue.finish()
            }
            var consumed: [Int] = []
            while let item = queue.pop() {
                if item % 10 == 0 { Thread.sleep(forTimeInterval: 0.002) }
                consumed.append(item)
            }
            return consumed
        }
        #expect(consumed == Array(0..<50))
        let statistics = queue.statistics
        #expect(statistics.accepted == 50 && statistics.rejected == 0)
        #expect((1...2).contains(statistics.highWaterMark))
    }

    @Test("control messages never wait, even on a full queue")
    func controlNeverWaits() {
        let queue = HandoffQueue<Int>(capacity: 1)
        queue.push(1, whenFull: .wait)
        for control in 0..<5 { queue.post(-control) }  // would hang here if they counted
        #expect(queue.close(with: 99))
        #expect((0..<7).map { _ in queue.pop() } == [1, 0, -1, -2, -3, -4, 99])
        #expect(queue.pop() == nil)
    }

    @Test("cancel wakes a producer waiting for room; later pushes are refused as closed, posts still get in")
    func cancelWakesProducer() async {
        let queue = HandoffQueue<Int>(capacity: 1)
        queue.push(1, whenFull: .wait)
        let outcome = await onThread {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { queue.cancel() }
            return queue.push(2, whenFull: .wait)  // full: waits until the cancel
        }
        #expect(outcome == .closed)
        #expect(queue.isCancelled)
        #expect(queue.push(3, whenFull: .replaceOldest) == .closed)
        queue.post(-1)
        queue.finish()
        #expect([queue.pop(), queue.pop(), queue.pop()] == [1, -1, nil])
    }

    @Test("finish wakes a consumer waiting on an empty queue; cancel ends a pacing sleep early")
    func finishWakesConsumer() async {
        let queue = HandoffQueue<Int>(capacity: 1)
        let popped = await onThread {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { queue.finish() }
            return queue.pop()
        }
        #expect(popped == nil)
        let clock = ManualClock()
        async let slept = onThread { queue.sleep(until: clock.now + .seconds(60), on: clock) }
        #expect(await clock.waitForSleepers())  // asleep on the clock
        queue.cancel()
        #expect(await slept == false)
        #expect(queue.sleep(until: .now) == false)
        #expect(HandoffQueue<Int>(capacity: 1).sleep(until: .now + .milliseconds(5)))
    }

    @Test("a pacing sleep ends when its clock reaches the deadline, not before")
    func pacingSleepFollowsItsClock() async {
        let queue = HandoffQueue<Int>(capacity: 1)
        let clock = ManualClock()
        let deadline = clock.now + .milliseconds(40)
        async let slept = onThread { queue.sleep(until: deadline, on: clock) }
        #expect(await clock.waitForSleepers())
        clock.advance(by: .milliseconds(39))
        #expect(clock.deadlines == [deadline], "still asleep 1 ms before its deadline")
        clock.advance(by: .milliseconds(1))
        #expect(await slept)
        #expect(clock.deadlines.isEmpty)
        #expect(queue.sleep(until: deadline, on: clock), "a deadline already reached: returns at once")
    }

    @Test("close(with:) puts its message after every item pushed before it and refuses everything after; a second close appends nothing")
    func closeWithLastItem() async {
        let queue = HandoffQueue<Int>(capacity: 4)
        let producer = await onThread {
            var outcomes: [HandoffQueue<Int>.PushOutcome] = []
            for item in 0..<3 { outcomes.append(queue.push(item, whenFull: .wait)) }
            #expect(queue.close(with: 100))
            outcomes.append(queue.push(4, whenFull: .wait))
            return outcomes
        }
        #expect(producer == [.queued, .queued, .queued, .closed])
        #expect(queue.close(with: 200) == false)
        #expect([queue.pop(), queue.pop(), queue.pop(), queue.pop(), queue.pop()] == [0, 1, 2, 100, nil])
    }

    @Test("isIdle: false while items wait or the consumer handles one, true once it asks for the next")
    func idleTracking() async {
        let queue = HandoffQueue<Int>(capacity: 2)
        #expect(queue.isIdle)
        queue.push(1, whenFull: .wait)
        #expect(!queue.isIdle)
        #expect(queue.pop() == 1)
        #expect(!queue.isIdle)  // handling it
        let ended = await onThread {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { queue.finish() }
            return queue.pop()
        }
        #expect(ended == nil)
        #expect(queue.isIdle)
    }

    @Test("close(discarding:) lets the waiting items go and returns them; pop is nil at once and the room is gone for good")
    func closeDiscarding() {
        let queue = HandoffQueue<Int>(capacity: 2)
        queue.push(1, whenFull: .refuse)
        queue.push(2, whenFull: .refuse)
        queue.post(-1)
        #expect(queue.close(discarding: true) == [1, 2, -1])
        #expect(queue.pop() == nil)
        #expect(queue.push(3, whenFull: .refuse) == .closed)
        #expect(queue.close(discarding: true).isEmpty)
    }

    @Test("a newest-wins mailbox (capacity 1): pop with a deadline returns nil when nothing came; wait(until:) takes nothing")
    func mailbox() {
        let queue = HandoffQueue<Int>(capacity: 1)
        #expect(queue.pop(waitingUntil: Date(timeIntervalSinceNow: 0.02)) == nil)
        queue.wait(until: Date(timeIntervalSinceNow: 0.02))  // nothing there: returns at the deadline
        queue.push(1, whenFull: .replaceOldest)
        queue.push(2, whenFull: .replaceOldest)
        queue.wait(until: Date(timeIntervalSinceNow: 60))  // returns at once: an item waits
        #expect(queue.pop(waitingUntil: Date(timeIntervalSinceNow: 60)) == 2)
        #expect(queue.statistics.replaced == 1)
    }

    @Test("waitUntilHandled: the producer returns only after the consumer handled its item, so nothing is lost")
    func waitUntilHandled() async {
        let queue = HandoffQueue<Int>(capacity: 1)
        let handled = Locked<[Int]>([])
        let consumer = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            while let item = queue.pop() {
                Thread.sleep(forTimeInterval: 0.002)
                handled.withLock { $0.append(item) }
                queue.markHandled()
            }
            consumer.signal()
        }
        let lastSeen = await onThread {
            var lastSeen: [Int?] = []
            for item in 0..<20 {
                #expect(queue.push(item, whenFull: .wait, waitUntilHandled: true) == .queued)
                lastSeen.append(handled.withLock { $0.last })  // returned: the consumer handled it
            }
            queue.close()
            consumer.wait()
            return lastSeen
        }
        #expect(lastSeen == (0..<20).map { $0 })
        #expect(handled.withLock { $0 } == Array(0..<20))
    }

    @Test("close wakes a producer waiting for its item to be handled")
    func closeWakesHandledWait() async {
        let queue = HandoffQueue<Int>(capacity: 1)
        let outcome = await onThread {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { queue.close() }
            return queue.push(1, whenFull: .wait, waitUntilHandled: true)  // no consumer: waits until the close
        }
        #expect(outcome == .queued)
        #expect(queue.pop() == 1)
    }
}
