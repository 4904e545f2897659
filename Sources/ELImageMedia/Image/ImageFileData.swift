import ELImage
import Foundation

/// Reads a whole image file into memory, with the errors of the image readers.
enum ImageFileData {
    /// The bytes of the regular file at `path`; `kind` ("PNG", "JPEG") names the file in hints.
    /// - Throws: `ELImageError.io` when it cannot be opened or read, or is not a regular file.
    static func read(_ path: String, kind: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw ELImageError.io(file: path, operation: "open", errno: code,
                                  hint: code == ENOENT ? "check the path" : "check the path and its permissions")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ELImageError.io(file: path, operation: "read", errno: EISDIR, hint: "give the path of a \(kind) file")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Foundation.read(descriptor, base + done, buffer.count - done)
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                let code = got < 0 ? errno : EIO
                throw ELImageError.io(file: path, operation: "read", errno: code, hint: "the file or its device may be damaged or gone")
            }
            done += got
        }
        return bytes
    }
}
