import CCrypto
import ELImage
import Foundation

/// A detector network's file, opened and checked against its pinned SHA-256 (`PinnedModelHashes`)
/// before OpenCV reads it. The file stays open while the object lives, and OpenCV is handed
/// `loadPath`, the open file itself (`/proc/self/fd/N`) rather than its name: a file swapped in
/// under the same name after the check is not the one loaded.
final class CheckedModelFile {
    /// The path the file was asked for by, for messages.
    let path: String
    /// What OpenCV should read: the checked open file, or `path` where `/proc` is not mounted.
    let loadPath: String
    private let descriptor: Int32

    /// Opens `path` and checks its SHA-256 against `pinned` (lowercase hex), reading it in chunks.
    /// `kind` names the network in messages ("the face landmark network").
    /// - Throws: `ELImageError.invalidInput` naming the file, the pinned and the found hash and
    ///   the command that reinstalls it when they differ, or when the file is missing or not a
    ///   regular file; `ELImageError.io` when it cannot be read.
    init(_ path: String, kind: String, pinned: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let failure = String(cString: strerror(errno))
            throw ELImageError.invalidInput(what: "\(kind) \(path) is missing or unreadable (\(failure))", hint: Self.reinstallHint)
        }
        do {
            var status = stat()
            guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
                throw ELImageError.invalidInput(what: "\(kind) \(path) is not a regular file", hint: Self.reinstallHint)
            }
            let found = try Self.sha256(of: descriptor, path: path)
            guard found == pinned else {
                throw ELImageError.invalidInput(
                    what: "\(kind) \(path) has SHA-256 \(found), not the pinned \(pinned): it was changed or replaced after it was installed",
                    hint: Self.reinstallHint)
            }
        } catch {
            close(descriptor)
            throw error
        }
        self.path = path
        self.descriptor = descriptor
        let open = "/proc/self/fd/\(descriptor)"
        loadPath = access(open, R_OK) == 0 ? open : path
    }

    deinit { close(descriptor) }

    /// What to do about a network that is missing or fails its check.
    static let reinstallHint = "reinstall the networks: `make models` in ELImage's folder (it fetches them and checks their SHA-256) "
        + "for \(ModelLocation.localFolder), `make install` or the Debian package for theirs; or set ELIMAGE_MODELS to a folder holding unchanged copies "
        + "(\(DocumentationPage.models.pointer))"

    /// `message` (OpenCV's, naming what it was handed) with each file's `loadPath` replaced by its `path`.
    static func naming(_ files: [CheckedModelFile], in message: String) -> String {
        files.reduce(message) { $0.replacingOccurrences(of: $1.loadPath, with: $1.path) }
    }

    /// The SHA-256 of what `descriptor` reads from its start to its end, in lowercase hex.
    private static func sha256(of descriptor: Int32, path: String) throws -> String {
        guard let context = EVP_MD_CTX_new() else {
            throw ELImageError.invalidState(node: "CheckedModelFile", reason: "libcrypto could not allocate a digest context for \(path)")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            throw ELImageError.invalidState(node: "CheckedModelFile", reason: "libcrypto has no SHA-256 for \(path)")
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let failure = errno
                if failure == EINTR { continue }
                throw ELImageError.io(file: path, operation: "read (SHA-256 check)", errno: failure, hint: reinstallHint)
            }
            if count == 0 { break }
            let updated = chunk.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, count) }
            guard updated == 1 else {
                throw ELImageError.invalidState(node: "CheckedModelFile", reason: "libcrypto's SHA-256 failed on \(path)")
            }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 32 else {
            throw ELImageError.invalidState(node: "CheckedModelFile", reason: "libcrypto's SHA-256 failed on \(path)")
        }
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
