import ELImage
import Foundation
import Synchronization

/// Where an output file is written before it is finished: `NAME.partial` in the destination's
/// folder, renamed onto the destination by `publish()`. A run that fails before it has anything to
/// keep calls `discard()`, so an existing file at the destination is never destroyed by it, and a
/// crashed recording is left as `NAME.partial` beside the file it would have replaced.
///
/// A destination that is a symbolic link is followed (the link stays, its target is replaced). A
/// destination that exists and is not a regular file (`/dev/null`, a FIFO) is written directly:
/// there is nothing to rename.
///
/// The temporary file is made new by `create()`, never opened through a link: a leftover (a
/// crashed run's file, or a link someone planted in a shared folder) is removed first, and the
/// name is created exclusively, without following links, so nothing outside it is written.
public struct StagedOutputFile: Sendable, Equatable {
    /// The path the user asked for.
    public let destination: String
    /// The path written while the output is unfinished (`destination` itself when not staged).
    public let temporary: String
    /// The path that `publish()` renames onto: the destination, or the file its link points to.
    let target: String

    /// Suffix of the temporary name.
    public static let suffix = ".partial"

    public init(destination: String) {
        self.destination = destination
        var info = stat()
        if stat(destination, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            (temporary, target) = (destination, destination)
            return
        }
        let target = Self.resolvingLinks(destination)
        self.target = target
        temporary = target + Self.suffix
    }

    /// True when the output goes through a temporary name.
    public var isStaged: Bool { temporary != target }

    /// Creates the temporary file for writing and returns its descriptor (close-on-exec): a
    /// leftover at its name (a file, or a link, whose target is left alone) is removed first, and
    /// the name is created exclusively, links not followed. An unstaged destination (a device, a
    /// FIFO) is opened as it is.
    /// - Throws: `ELImageError.io` with `errno` when the file cannot be made (`EEXIST` when
    ///   something put at the name again could not be removed).
    public func create() throws -> Int32 {
        try Self.refuseProtected(target, named: destination)
        if isStaged, let hint = Self.existingFilesHint.withLock({ $0 }), FileManager.default.fileExists(atPath: target) {
            throw ELImageError.invalidInput(what: "\(destination) exists", hint: hint)
        }
        guard isStaged else {
            let descriptor = open(temporary, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure("open", errno) }
            return descriptor
        }
        let descriptor = Self.createExclusively(temporary)
        guard descriptor >= 0 else { throw failure("create", errno) }
        return descriptor
    }

    /// Creates a new file at `path` for a writer that names its own files (HLS segments and
    /// playlists), as `create()` makes its temporary file: refused when `path`, or `final` (the
    /// name the writer renames it to), is a protected input; a leftover at the name (a file, or a
    /// link, whose target is left alone) is removed first, and the name is created exclusively,
    /// links not followed.
    /// - Returns: the descriptor, close-on-exec.
    /// - Throws: `ELImageError.invalidInput` for a protected input; `ELImageError.io` with `errno`
    ///   when the file cannot be made.
    public static func createReplacing(_ path: String, renamedTo final: String? = nil) throws -> Int32 {
        for name in [path, final].compactMap({ $0 }) { try refuseProtected(name, named: name) }
        let descriptor = createExclusively(path)
        guard descriptor >= 0 else {
            let code = errno
            throw ELImageError.io(file: path, operation: "create", errno: code, hint: WriteFailureHint.text(for: code))
        }
        return descriptor
    }

    /// Removes what is at `path` (not a folder) and creates it anew, exclusively, links not
    /// followed; -1 with `errno` set on failure.
    private static func createExclusively(_ path: String) -> Int32 {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR { unlink(path) }
        return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    }

    /// `create()` as a C stream, for writers that write through one (`fwrite`, libpng).
    public func createStream() throws -> UnsafeMutablePointer<FILE> {
        let descriptor = try create()
        guard let stream = fdopen(descriptor, "wb") else {
            let code = errno
            Foundation.close(descriptor)
            discard()
            throw failure("open a stream on", code)
        }
        return stream
    }

    /// Marks the file at `path` (through links; another name or a hard link of it is the same file)
    /// as one no output may replace: `create()` refuses it. For a run's inputs, named before its
    /// outputs are (a segment's, a numbered picture's or a metadata file's name could be one).
    public static func protect(_ path: String) {
        guard let identity = FileIdentity(path) else { return }
        protected.withLock { _ = $0.insert(identity) }
    }

    /// From now on in this process, `create()` refuses a destination where a file exists instead
    /// of replacing it when the output is finished: for programs that replace files only when told
    /// (`elimage run` without `-y`). `hint` is the refusal's advice (how to allow it).
    public static func keepExistingFiles(hint: String) {
        existingFilesHint.withLock { $0 = hint }
    }

    /// The advice `keepExistingFiles(hint:)` gave; nil while existing files are replaced.
    private static let existingFilesHint = Mutex<String?>(nil)

    /// The files `protect(_:)` named.
    private static let protected = Mutex<Set<FileIdentity>>([])

    /// Throws when the file at `path` is one `protect(_:)` named; `name` is how the error calls it.
    private static func refuseProtected(_ path: String, named name: String) throws {
        guard let identity = FileIdentity(path), protected.withLock({ $0.contains(identity) }) else { return }
        throw ELImageError.invalidInput(what: "\(name) is an input of this run (the same file)",
                                        hint: "writing it would destroy the input; choose another output name")
    }

    private func failure(_ operation: String, _ code: Int32) -> ELImageError {
        guard code == EEXIST else {
            return .io(file: destination, operation: operation, errno: code, hint: WriteFailureHint.text(for: code))
        }
        return .io(file: temporary, operation: operation, errno: code,
                   hint: "it is where \(destination) is written until finished, and could not be removed; remove it, or write elsewhere")
    }

    /// Renames the finished temporary file onto the destination (replacing it atomically).
    /// - Throws: `ELImageError.io` with `errno` when the rename fails; the temporary file stays.
    public func publish() throws {
        guard isStaged else { return }
        guard rename(temporary, target) == 0 else {
            let code = errno
            throw ELImageError.io(file: destination, operation: "rename the finished \(temporary) to", errno: code,
                                  hint: "the output is complete in \(temporary); move it into place yourself")
        }
    }

    /// Removes the temporary file (a regular file only); the destination is left as it was.
    public func discard() {
        var info = stat()
        guard isStaged, lstat(temporary, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        unlink(temporary)
    }

    /// `path` with every symbolic link along it resolved; `path` itself when it does not exist yet
    /// or is not a link.
    private static func resolvingLinks(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
              let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// A file by identity: its device and inode, whatever name or link reaches it.
private struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
