import CFFmpeg
import ELImage
import Foundation
import Synchronization

/// Opens the files libavformat's HLS muxer writes (segments, the fMP4 init segment, the
/// playlist's `.tmp` before its rename) as ELImage opens its own outputs
/// (`StagedOutputFile.createReplacing`): each a new file, created exclusively with links not
/// followed, and never an input of the run. libavformat alone opens them with `O_TRUNC`, through
/// any link planted at the name.
///
/// Installed as the muxer's `io_open`/`io_close2`; nested muxers (the segments' MPEG-TS or MP4)
/// inherit them. The object must outlive the format context it is installed on.
final class HLSFileAccess: Sendable {
    /// Why the last file could not be made, for the muxer's error.
    var lastFailure: ELImageError? { failure.withLock { $0 } }
    private let failure = Mutex<ELImageError?>(nil)

    /// The write buffer of each file, in bytes.
    private static let bufferBytes: Int32 = 64 << 10

    /// Routes the file opens of `context` (and of the muxers it nests) through this object.
    func install(on context: UnsafeMutablePointer<AVFormatContext>) {
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.io_open = { context, io, url, flags, options in
            guard let context, let io, let url else { return elimage_averror(EINVAL) }
            guard flags & AVIO_FLAG_WRITE != 0 else {
                // Reading (the muxer reading back its own playlist): local files only.
                var callback = context.pointee.interrupt_callback
                return avio_open2(io, url, flags, &callback, options)
            }
            let access = context.pointee.opaque.map { Unmanaged<HLSFileAccess>.fromOpaque($0).takeUnretainedValue() }
            return access?.openForWriting(String(cString: url), into: io) ?? elimage_averror(EINVAL)
        }
        context.pointee.io_close2 = { _, io in
            guard let io else { return 0 }
            // avio_open2's contexts (reads) have a class; ours, from avio_alloc_context, have none.
            if io.pointee.av_class != nil { return avio_close(io) }
            avio_flush(io)
            var status = io.pointee.error
            let descriptor = Int32(Int(bitPattern: io.pointee.opaque) - 1)
            av_freep(&io.pointee.buffer)
            var context: UnsafeMutablePointer<AVIOContext>? = io
            avio_context_free(&context)
            if close(descriptor) != 0, status >= 0 { status = elimage_averror(errno) }
            return status
        }
    }

    /// Makes `path` new and gives libavformat a context writing to it.
    private func openForWriting(_ path: String, into io: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) -> Int32 {
        guard !path.contains("://") else { return elimage_averror(EPERM) }
        let renamed = path.hasSuffix(".tmp") ? String(path.dropLast(4)) : nil
        let descriptor: Int32
        do {
            descriptor = try StagedOutputFile.createReplacing(path, renamedTo: renamed)
        } catch let error as ELImageError {
            failure.withLock { $0 = error }
            if case .io(_, _, let code, _) = error { return elimage_averror(code) }
            return elimage_averror(EPERM)
        } catch {
            return elimage_averror(EIO)
        }
        guard let buffer = av_malloc(Int(Self.bufferBytes))?.assumingMemoryBound(to: UInt8.self),
              let context = avio_alloc_context(buffer, Self.bufferBytes, 1, UnsafeMutableRawPointer(bitPattern: Int(descriptor) + 1),
                                               nil, Self.write, Self.seek) else {
            close(descriptor)
            return elimage_averror(ENOMEM)
        }
        io.pointee = context
        return 0
    }

    /// Writes all of `bytes` to the descriptor kept in `opaque` (plus one).
    private static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, bytes, count in
        let descriptor = Int32(Int(bitPattern: opaque) - 1)
        guard let bytes else { return elimage_averror(EINVAL) }
        var done = 0
        while done < Int(count) {
            let written = Foundation.write(descriptor, bytes + done, Int(count) - done)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return elimage_averror(written < 0 ? errno : EIO) }
            done += written
        }
        return count
    }

    /// Seeks the descriptor kept in `opaque`, or gives its size for `AVSEEK_SIZE`.
    private static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        let descriptor = Int32(Int(bitPattern: opaque) - 1)
        if whence & AVSEEK_SIZE != 0 {
            var info = stat()
            return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : Int64(elimage_averror(errno))
        }
        let position = lseek(descriptor, off_t(offset), whence & ~AVSEEK_FORCE)
        return position < 0 ? Int64(elimage_averror(errno)) : Int64(position)
    }
}
