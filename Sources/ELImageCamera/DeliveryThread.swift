import Dispatch
import Foundation
import Synchronization

/// A thread that runs a camera's deliveries on the render thread, one at a time, when woken.
///
/// Deliveries go through `RenderContext.performAndWait` from this plain thread rather than
/// through Swift concurrency tasks: they never wait for a free cooperative thread (which
/// blocking code elsewhere in a program can use up), and they keep their order. The capture
/// thread only signals it, so capture never waits for the graph.
final class DeliveryThread: Sendable {
    private let wakeups = DispatchSemaphore(value: 0)
    private let finished = Atomic<Bool>(false)

    /// Starts the thread; `deliver` runs once per `wake()`. The thread ends after `finish()`.
    init(name: String, deliver: @escaping @Sendable () -> Void) {
        let thread = Thread { [wakeups, self] in
            while true {
                wakeups.wait()
                if finished.load(ordering: .acquiring) { return }
                deliver()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Asks for one more delivery.
    func wake() { wakeups.signal() }

    /// Ends the thread after the delivery in progress, if any.
    func finish() {
        finished.store(true, ordering: .releasing)
        wakeups.signal()
    }
}
