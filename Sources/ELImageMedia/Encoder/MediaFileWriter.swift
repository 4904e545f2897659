import ELImage
import Foundation

/// Where an encoder's (or a file sink's) bytes go: the seam between ELImage's writers and the
/// file system.
///
/// `POSIXFileWriter` writes a real file. Tests (or an application that writes somewhere else)
/// give their own writer, e.g. one that fails with `ENOSPC` after some bytes, to see how a
/// recording behaves on a full disk.
///
/// A writer is created on one thread and then used by one worker thread at a time (the
/// encoder's): implementations need no locking, but must be `Sendable` to be handed over.
public protocol MediaFileWriter: AnyObject, Sendable {
    /// The file's path, named in errors and removed by `remove()`.
    var path: String { get }

    /// Appends `bytes`. Either all of them are written or it throws.
    /// - Throws: `ELImageError.io` with the `errno` of the failing call (`ENOSPC` for a full disk,
    ///   `EIO` for a failing device).
    func write(_ bytes: UnsafeRawBufferPointer) throws

    /// Makes what was written so far durable (`fdatasync`), so a power loss keeps it.
    func synchronize() throws

    /// Closes the file. Calling it again does nothing.
    func close() throws

    /// Puts the closed file in place when it holds something worth keeping. A writer that writes
    /// under a temporary name (`POSIXFileWriter`) renames it onto `path` here.
    func publish() throws

    /// Deletes what was written (after `close()`), e.g. when a recording is cancelled or got no
    /// frame. Only regular files are removed (never a device such as `/dev/full`), and a writer
    /// that writes under a temporary name removes that, never a file already at `path`.
    func remove()
}

extension MediaFileWriter {
    /// Nothing to do for a writer that writes at `path` directly.
    public func publish() throws {}

    public func remove() {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        unlink(path)
    }
}

/// A `MediaFileWriter` over a POSIX file descriptor: `open`/`write`/`fdatasync`/`close`, with
/// `errno` in every error.
///
/// The file is written as `PATH.partial` beside `path` (see `StagedOutputFile`) and renamed onto
/// `path` by `publish()`: a run that fails before it has anything to keep leaves an existing file
/// at `path` untouched, and a crashed recording is found, playable up to its last fragment, as
/// `PATH.partial`.
public final class POSIXFileWriter: MediaFileWriter, Sendable {
    public let path: String
    /// The temporary name written to, and the rename that finishes it.
    public let staging: StagedOutputFile
    /// The descriptor (-1 once closed) and the bytes written: used by one thread at a time (the
    /// protocol's contract), locked so that the compiler can check it.
    private let file: Locked<(descriptor: Int32, bytesWritten: Int64)>
    /// Bytes written so far.
    public var bytesWritten: Int64 { file.withLock { $0.bytesWritten } }

    /// Creates the temporary file for `path` anew (`StagedOutputFile.create()`: a leftover is
    /// replaced, a link at its name is not followed); `path` itself is not touched until `publish()`.
    /// - Throws: `ELImageError.io` with `errno` (e.g. `EACCES`, `ENOENT` for a missing folder).
    public init(path: String) throws {
        let staging = StagedOutputFile(destination: path)
        let descriptor = try staging.create()
        self.path = path
        self.staging = staging
        file = Locked((descriptor, 0))
    }

    deinit {
        file.withLock { file in
            if file.descriptor >= 0 { Foundation.close(file.descriptor) }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try file.withLock { file in
            guard file.descriptor >= 0 else {
                throw ELImageError.io(file: path, operation: "write to", errno: EBADF,
                                      hint: "the file was closed; this is a bug in the caller")
            }
            guard var next = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let written = Foundation.write(file.descriptor, next, left)
                if written < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    throw ELImageError.io(file: path, operation: "write \(left) bytes at offset \(file.bytesWritten) to",
                                          errno: code, hint: WriteFailureHint.text(for: code))
                }
                if written == 0 {
                    throw ELImageError.io(file: path, operation: "write to", errno: ENOSPC, hint: WriteFailureHint.text(for: ENOSPC))
                }
                next += written
                left -= written
                file.bytesWritten += Int64(written)
            }
        }
    }

    public func synchronize() throws {
        let descriptor = file.withLock { $0.descriptor }
        guard descriptor >= 0 else { return }
        guard fdatasync(descriptor) == 0 else {
            let code = errno
            // Character devices and pipes cannot be synchronised; that is not a failure.
            if code == EINVAL || code == EROFS { return }
            throw ELImageError.io(file: path, operation: "flush to disk", errno: code, hint: WriteFailureHint.text(for: code))
        }
    }

    public func close() throws {
        let descriptor = file.withLock { file in
            defer { file.descriptor = -1 }
            return file.descriptor
        }
        guard descriptor >= 0 else { return }
        guard Foundation.close(descriptor) == 0 else {
            let code = errno
            throw ELImageError.io(file: path, operation: "close", errno: code, hint: WriteFailureHint.text(for: code))
        }
    }

    /// Moves the write position (`lseek`: `SEEK_SET`, `SEEK_CUR`, `SEEK_END`), for containers that
    /// go back to fill in a size or an index (Matroska, WebP); -1 with `errno` set on failure.
    package func seek(to offset: Int64, whence: Int32) -> Int64 {
        file.withLock { file in file.descriptor >= 0 ? Int64(lseek(file.descriptor, off_t(offset), whence)) : -1 }
    }

    /// The file's size so far, or -1.
    package var size: Int64 {
        file.withLock { file in
            var info = stat()
            return file.descriptor >= 0 && fstat(file.descriptor, &info) == 0 ? Int64(info.st_size) : -1
        }
    }

    /// Renames the temporary file onto `path` (after `close()`).
    public func publish() throws {
        try staging.publish()
    }

    /// Removes the temporary file; a file already at `path` stays as it was.
    public func remove() {
        staging.discard()
    }
}
