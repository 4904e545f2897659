import Foundation

/// A thread the framework starts (render, capture, delivery, decode, encoder, file sink,
/// snapshot): a named POSIX thread that is joined exactly once, by whoever closes its owner.
///
/// Made first, then `start()`ed, so that its owner can keep it before it runs. Once started it
/// is in its owner's `ThreadGroup` until joined, so the owner's close joins whatever its nodes did
/// not. "Joined" means `pthread_join` has returned: the thread has run its thread-local
/// destructors (EGL's, glapi's, the Swift runtime's) and is gone, so nothing of it can race the
/// process's `exit()`.
package final class JoinableThread: Sendable {
    private enum ThreadPhase {
        case created(Start)
        case started(pthread_t)
        case joined
    }

    /// The thread's name (the system keeps the first 15 characters).
    package let name: String
    private let stackSize: Int
    private let exit = ExitSignal()
    private let phase: Locked<ThreadPhase>
    private let membership: Locked<Membership>

    /// The group the thread is in once started (weak: the group's owner holds the group).
    private struct Membership {
        weak var group: ThreadGroup?
    }

    /// A thread that will run `body`, registered in `group` once started.
    package init(name: String, stackSize: Int = 4 << 20, group: ThreadGroup?, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.stackSize = stackSize
        membership = Locked(Membership(group: group))
        phase = Locked(.created(Start(name: name, group: group, body: body, exit: exit)))
    }

    /// The group of the framework thread this is called on; nil on any other thread. A thread
    /// that a framework thread starts for its own work (a live stream's network thread, started by
    /// the encoder thread) joins this group, so the owner's close joins it too.
    package static var currentGroup: ThreadGroup? {
        (Thread.current.threadDictionary[GroupReference.key] as? GroupReference)?.group
    }

    /// Starts the thread. Does nothing when it was started before.
    /// - Throws: `ELImageError.invalidState` when the system refuses a thread (`EAGAIN`: too many).
    package func start() throws(ELImageError) {
        let code = phase.withLock { phase -> Int32 in
            guard case let .created(start) = phase else { return 0 }
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setstacksize(&attributes, stackSize)
            var thread = pthread_t()
            let argument = Unmanaged.passRetained(start)
            let code = pthread_create(&thread, &attributes, { argument in
                guard let argument else { return nil }
                Unmanaged<Start>.fromOpaque(argument).takeRetainedValue().run()
                return nil
            }, argument.toOpaque())
            if code == 0 {
                phase = .started(thread)
            } else {
                argument.release()
            }
            return code
        }
        guard code == 0 else {
            throw .invalidState(node: name, reason: "cannot start its thread: \(String(cString: strerror(code)))")
        }
        group?.add(self)
    }

    /// Puts a thread made in no group (a microphone's, made before any context) into `group`, so
    /// that the group's owner joins it too. Does nothing for a thread in a group already, or joined.
    package func adopt(into group: ThreadGroup) {
        let adopted = membership.withLock { membership -> Bool in
            guard membership.group == nil else { return false }
            membership.group = group
            return true
        }
        guard adopted else { return }
        phase.withLock { phase in
            if case .started = phase { group.add(self) }
        }
    }

    private var group: ThreadGroup? { membership.withLock { $0.group } }

    /// A thread nobody joined is detached, so its resources go when it ends. Never waits.
    deinit {
        phase.withLock { phase in
            if case let .started(thread) = phase { pthread_detach(thread) }
        }
    }

    /// True when called on this thread.
    package var isCurrent: Bool {
        guard case let .started(thread) = phase.withLock({ $0 }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Waits, without blocking a Swift concurrency thread, until the body has returned, then joins
    /// the thread. Idempotent; returns at once for a thread never started, or on the thread itself.
    package func join() async {
        guard isStarted, !isCurrent else { return }
        await exit.wait()
        joinFinishedThread()
    }

    /// Blocks the calling thread until the thread has ended and is joined. For plain threads only
    /// (never a Swift concurrency task). Idempotent; returns at once for a thread never started,
    /// or on the thread itself.
    package func joinBlocking() {
        guard isStarted, !isCurrent else { return }
        exit.waitBlocking()
        joinFinishedThread()
    }

    private var isStarted: Bool {
        if case .created = phase.withLock({ $0 }) { return false }
        return true
    }

    /// The body has returned, so `pthread_join` waits only for the thread's last microseconds.
    private func joinFinishedThread() {
        phase.withLock { phase in
            guard case let .started(thread) = phase else { return }
            pthread_join(thread, nil)
            phase = .joined
        }
        group?.remove(self)
    }

    /// What the new thread runs: the body, released before the end is announced, so that nothing
    /// the body captured outlives the thread's join.
    private final class Start: Sendable {
        let name: String
        let exit: ExitSignal
        private let group: Locked<Membership>
        /// Taken by the thread that runs it, once.
        private let body: Locked<(@Sendable () -> Void)?>

        init(name: String, group: ThreadGroup?, body: @escaping @Sendable () -> Void, exit: ExitSignal) {
            self.name = name
            self.group = Locked(Membership(group: group))
            self.body = Locked(body)
            self.exit = exit
        }

        func run() {
            Thread.current.name = name  // the system keeps the first 15 characters
            if let group = group.withLock({ $0.group }) {
                Thread.current.threadDictionary[GroupReference.key] = GroupReference(group)
            }
            if let body = body.withLock({ body in
                defer { body = nil }
                return body
            }) {
                body()
            }
            exit.markDone()
        }
    }
}

/// A framework thread's group, kept in the thread's dictionary (`JoinableThread.currentGroup`).
private final class GroupReference: NSObject {
    static let key = "ELImage.threadGroup"
    weak var group: ThreadGroup?
    init(_ group: ThreadGroup) { self.group = group }
}

/// Tells waiters (blocking threads and async tasks) that a thread's body has returned.
private final class ExitSignal: Sendable {
    private struct Exit {
        var done = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(Exit())

    func markDone() {
        let waiting = state.withCondition { exit in
            exit.done = true
            exit.broadcast()
            defer { exit.waiters = [] }
            return exit.waiters
        }
        waiting.forEach { $0.resume() }
    }

    func waitBlocking() {
        state.withCondition { exit in
            while !exit.done { exit.wait() }
        }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { exit in
                if !exit.done { exit.waiters.append(continuation) }
                return exit.done
            }
            if done { continuation.resume() }
        }
    }
}
