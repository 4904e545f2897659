import ELImage
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

@Suite("ManualClock, Waitable and Gate")
struct ManualClockTests {
    @Test("A task's sleep ends when the clock reaches its deadline, not before; the clock never goes back")
    func taskSleep() async throws {
        let clock = ManualClock()
        let woke = Waitable<ContinuousClock.Instant?>(nil)
        let sleeper = Task {
            try await clock.sleep(until: clock.start + .milliseconds(100))
            woke.update { $0 = clock.now }
        }
        #expect(await clock.waitForSleepers())
        #expect(clock.deadlines == [clock.start + .milliseconds(100)])
        clock.advance(by: .milliseconds(99))
        #expect(woke.value == nil && clock.deadlines.count == 1)
        clock.advance(by: .milliseconds(1))
        try await sleeper.value
        #expect(woke.value == clock.start + .milliseconds(100))
        clock.advance(to: clock.start)  // backwards: ignored
        #expect(clock.elapsed == .milliseconds(100))
        try await clock.sleep(until: clock.start)  // already past: returns at once
    }

    @Test("Cancelling a sleeping task ends its sleep with CancellationError")
    func cancelledSleep() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now + .seconds(3600)) }
        #expect(await clock.waitForSleepers())
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.deadlines.isEmpty)
    }

    @Test("A thread's blocking wait ends at the deadline; its condition's own signal wakes it early")
    func threadWait() async throws {
        let clock = ManualClock()
        let condition = NSCondition()
        let flag = Locked(false)
        let done = Waitable(0)
        let waiter = Thread {
            condition.lock()
            while !flag.withLock({ $0 }), clock.now < clock.start + .seconds(1) {
                clock.wait(on: condition, until: clock.start + .seconds(1))
            }
            condition.unlock()
            done.update { $0 += 1 }
        }
        waiter.start()
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(1))
        #expect(await done.wait { $0 == 1 })

        let second = Thread {
            condition.lock()
            while !flag.withLock({ $0 }) { clock.wait(on: condition, until: clock.now + .seconds(3600)) }
            condition.unlock()
            done.update { $0 += 1 }
        }
        second.start()
        #expect(await clock.waitForSleepers())
        condition.withLock {
            flag.withLock { $0 = true }
            condition.broadcast()
        }
        #expect(await done.wait { $0 == 2 })
        #expect(clock.deadlines.isEmpty)
    }

    @Test("A Waitable wakes its waiters on the change that makes their condition true; the timeout says false")
    func waitable() async {
        let value = Waitable(0)
        async let three = value.wait { $0 >= 3 }
        for _ in 0..<3 { value.update { $0 += 1 } }
        #expect(await three)
        #expect(await value.wait(timeout: .milliseconds(1)) { $0 > 100 } == false)
    }

    @Test("A Gate holds threads until opened, and says when one waits")
    func gate() async {
        let gate = Gate()
        let passed = Waitable(0)
        Thread {
            gate.pass()
            passed.update { $0 += 1 }
        }.start()
        #expect(await gate.waitUntilWaiting())
        #expect(passed.value == 0 && gate.waitingCount == 1)
        gate.open()
        #expect(await passed.wait { $0 == 1 })
        #expect(gate.passedCount == 1 && gate.waitingCount == 0)
        gate.pass()  // open: at once
    }
}
