import Dispatch
import ELImageTesting
import Foundation
import Glibc

/// Watches a folder with inotify: a file created, written, renamed or removed in it is an event,
/// so a test waits for a file to appear or grow (a server's socket, a recording's fragments, a
/// program's output) without polling.
package final class FolderWatch: @unchecked Sendable {
    // @unchecked Sendable: `source` is set once in init; dispatch sources are thread-safe.
    private let changes = Waitable(0)
    private let source: any DispatchSourceRead

    /// Starts watching `folder`.
    /// - Throws: `ToolFailure` when inotify refuses (no such folder, too many watches).
    package init(_ folder: String) throws {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw ToolFailure(tool: "inotify", status: errno, message: "inotify_init1: \(String(cString: strerror(errno)))")
        }
        let events = IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB
        guard inotify_add_watch(descriptor, folder, UInt32(events)) >= 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ToolFailure(tool: "inotify", status: errno, message: "cannot watch \(folder): \(reason)")
        }
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
        source.setEventHandler { [changes] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(descriptor, &buffer, buffer.count) > 0 {}
            changes.update { $0 += 1 }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    deinit { source.cancel() }

    /// Wakes the waiters to look again (something besides the folder changed: a process ended).
    package func poke() { changes.update { $0 += 1 } }

    /// Returns once `condition` holds, checked now and after each change in the folder; false when
    /// `timeout` passed first.
    package func wait(timeout: Duration = .seconds(60), until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = changes.value
            if condition() { return true }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero, await changes.wait(timeout: left, until: { $0 > seen }) else { return condition() }
        }
    }

    /// Waits until `path` (in the watched folder) exists and `condition` holds for its bytes.
    package func waitForFile(_ path: String, timeout: Duration = .seconds(60), while alive: () -> Bool = { true },
                     until condition: (Data) -> Bool) async -> Bool {
        await wait(timeout: timeout) {
            guard let data = FileManager.default.contents(atPath: path) else { return !alive() }
            return condition(data) || !alive()
        } && (FileManager.default.contents(atPath: path).map(condition) ?? false)
    }
}
