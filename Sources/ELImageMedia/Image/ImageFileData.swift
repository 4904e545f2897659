import ELImage
import Foundation

/// Reads a whole image file into memory, with the errors of the image readers, once its header
/// has shown the file to be within the input budget.
///
/// The first bytes are read alone: when they state the picture's size, that size is checked
/// (`ImageSizeLimit`, `InputLimits`) and the file may be no larger than such a picture's data
/// with generous room for metadata. A file whose header states nothing is held to the largest
/// picture the budget allows. Either way nothing is read whole before then, so a small header
/// before gigabytes of data (a sparse file) is refused after reading a megabyte.
enum ImageFileData {
    /// How much is read before the rest: enough for a JPEG's metadata segments before its frame
    /// header in nearly every file.
    static let headBytes = 1 << 20
    /// The room beside a picture's samples for metadata (ICC profiles, EXIF, text chunks).
    static let metadataBytes = 64 << 20
    /// The most bytes a file may have per pixel of its picture: 16-bit RGBA uncompressed, the
    /// worst case of either format.
    static let bytesPerPixel = 8

    /// The bytes of the regular file at `path`; `kind` ("PNG", "JPEG") names the file in hints, and
    /// `statedSize` reads the picture's size from the file's first bytes (nil when they do not
    /// state one).
    /// - Throws: `ELImageError.io` when it cannot be opened or read, or is not a regular file;
    ///   `ELImageError.malformedMedia` for a stated size beyond the limits or a file larger than
    ///   its picture can explain.
    static func read(_ path: String, kind: String,
                     statedSize: ([UInt8]) -> (width: Int, height: Int)?) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw ELImageError.io(file: path, operation: "open", errno: code,
                                  hint: code == ENOENT ? "check the path" : "check the path and its permissions")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            throw ELImageError.io(file: path, operation: "read", errno: code, hint: "check the file")
        }
        try requireRegularFile(path, mode: info.st_mode, kind: kind)
        let fileSize = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: min(fileSize, headBytes))
        try fill(&bytes, from: 0, descriptor: descriptor, path: path)
        let stated = statedSize(bytes)
        if let stated {
            try ImageSizeLimit.check(width: stated.width, height: stated.height, file: path, kind: kind)
        }
        let pixels = stated.map { $0.width * $0.height } ?? InputLimits.current.maximumPixels
        let largest = pixels * bytesPerPixel + metadataBytes
        guard fileSize <= largest else {
            let picture = stated.map { "its header's \($0.width)x\($0.height) picture" }
                ?? "the largest picture allowed (\(InputLimits.current.maximumPixels) pixels, InputLimits.maximumPixels)"
            throw ELImageError.malformedMedia(
                file: path, frame: nil,
                reason: "it is \(fileSize) bytes, more than \(picture) can fill with its metadata (\(largest) bytes); the file is damaged or not a \(kind) file")
        }
        let head = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: fileSize - head))
        try fill(&bytes, from: head, descriptor: descriptor, path: path)
        return bytes
    }

    /// Throws unless `path` is a regular file (whose header can be read before the rest). A
    /// folder, a FIFO, a socket or a device is refused with what it is.
    /// - Parameter mode: its `st_mode`, when already known; else the path is looked up.
    static func requireRegularFile(_ path: String, mode: mode_t? = nil, kind: String) throws {
        var info = stat()
        guard let mode = mode ?? (stat(path, &info) == 0 ? info.st_mode : nil),  // else open says why
              let what = SpecialFileKind.name(of: mode) else { return }
        if mode & S_IFMT == S_IFDIR {
            throw ELImageError.io(file: path, operation: "read", errno: EISDIR, hint: "give the path of a \(kind) file, not a folder")
        }
        throw ELImageError.invalidInput(
            what: "\(path) is \(what), not a regular file",
            hint: "a \(kind) picture is read from a regular file (its header first, then the rest); save it to a file first, or send video through a pipe as Y4M")
    }

    /// Reads into `bytes` from `start` to its end.
    private static func fill(_ bytes: inout [UInt8], from start: Int, descriptor: Int32, path: String) throws {
        var done = start
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
    }
}
