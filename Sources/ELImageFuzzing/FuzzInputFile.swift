import ELImage
import Foundation
import Synchronization

/// Hands fuzz inputs to readers that only take a path: each input is written to a fresh file in a
/// folder of this process (under `/dev/shm` when it is writable, so nothing touches the disk;
/// else `$TMPDIR` or `/tmp`), and removed after use. The folder is removed at exit; the folders of
/// processes that died before (a crash found by the fuzzer) are removed when the next one starts.
enum FuzzInputFile {
    /// Writes `bytes` to a new file whose name ends with `suffix`, runs `body` with its path, and
    /// removes the file.
    /// - Throws: what `body` throws; `FuzzContractViolation` when the file cannot be written.
    static func with<Result>(_ bytes: [UInt8], suffix: String, _ body: (String) throws -> Result) throws -> Result {
        guard let folder else {
            throw FuzzContractViolation("cannot create a folder for fuzz inputs in /dev/shm, $TMPDIR or /tmp")
        }
        let number = counter.add(1, ordering: .relaxed).newValue
        let path = "\(folder)/input-\(number)\(suffix)"
        try write(bytes, to: path)
        defer { unlink(path) }
        return try body(path)
    }

    /// Numbers the files, so that inputs handled at the same time (parallel tests) do not collide.
    private static let counter = Atomic<Int>(0)

    /// This process's folder, or nil when none could be made.
    private static let folder: String? = {
        let candidates = ["/dev/shm", ProcessInfo.processInfo.environment["TMPDIR"], "/tmp"].compactMap { $0 }
        for parent in candidates where access(parent, W_OK) == 0 {
            removeFoldersOfDeadProcesses(in: parent)
            var template = Array("\(parent)/elimage-fuzz-\(getpid())-XXXXXX".utf8CString)
            guard mkdtemp(&template) != nil else { continue }
            atexit { FuzzInputFile.removeFolder() }
            return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }()

    /// Removes `parent/elimage-fuzz-<pid>-*` of processes that no longer run.
    private static func removeFoldersOfDeadProcesses(in parent: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        for name in names where name.hasPrefix("elimage-fuzz-") {
            let fields = name.split(separator: "-")
            guard fields.count == 4, let pid = pid_t(fields[2]), pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: "\(parent)/\(name)")
            }
        }
    }

    private static func removeFolder() {
        if let folder { rmdir(folder) }
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw FuzzContractViolation("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Foundation.write(descriptor, base + written, buffer.count - written)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw FuzzContractViolation("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += count
        }
    }
}
