import ELImage
import Foundation

/// A thread that runs a camera's deliveries on the render thread, one at a time, when woken.
///
/// Deliveries go through `RenderContext.performAndWait` from this plain thread rather than
/// through Swift concurrency tasks: they never wait for a free cooperative thread (which
/// blocking code elsewhere in a program can use up), and they keep their order. The capture
/// thread only signals it, so capture never waits for the graph.
final class DeliveryThread: @unchecked Sendable {
    // @unchecked Sendable: `wakeups` and `finished` are guarded by `condition`.
    private let condition = NSCondition()
    private var wakeups = 0
    private var finished = false
    private var thread: JoinableThread?

    /// Makes the thread, registered in `group`; `deliver` runs once per `wake()`. It starts with
    /// the first `wake()` and ends after `finish()`, once every delivery asked for has run.
    init(name: String, group: ThreadGroup, deliver: @escaping @Sendable () -> Void) {
        thread = JoinableThread(name: name, group: group) { [condition, self] in
            while true {
                condition.lock()
                while wakeups == 0 && !finished { condition.wait() }
                if wakeups == 0 {
                    condition.unlock()
                    return
                }
                wakeups -= 1
                condition.unlock()
                deliver()
            }
        }
    }

    /// Asks for one more delivery (starting the thread the first time).
    func wake() {
        condition.lock()
        wakeups += 1
        condition.signal()
        condition.unlock()
        try? thread?.start()
    }

    /// Ends the thread after the deliveries asked for so far. Does not wait: `join()` does.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Waits until the thread has ended (after `finish()`).
    func join() async {
        await thread?.join()
    }
}
