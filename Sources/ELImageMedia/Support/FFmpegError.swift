import CFFmpeg
import ELImage
import Foundation

/// FFmpeg's error codes as text, and the `ELImageError`s the movie code builds from them.
enum FFmpegError {
    /// `AVERROR(EAGAIN)`: the call wants the other side of the send/receive pair first.
    static let again = elimage_averror(EAGAIN)
    /// `AVERROR_EOF`: the end of the stream.
    static let endOfFile = elimage_averror_eof()

    /// FFmpeg's text for `code` (e.g. "Invalid data found when processing input").
    static func text(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard av_strerror(code, &buffer, buffer.count) == 0 else { return "FFmpeg error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `code` is `AVERROR(ENOMEM)`: an allocation refused, by `InputLimits` or the system.
    static func isOutOfMemory(_ code: Int32) -> Bool { code == elimage_averror(ENOMEM) }

    /// The error for a file that `avformat_open_input` refused.
    static func openFailure(_ code: Int32, path: String) -> ELImageError {
        for errorNumber in [ENOENT, EACCES, EISDIR, ENOTDIR, ELOOP, EMFILE] where code == elimage_averror(errorNumber) {
            let hint = errorNumber == ENOENT ? "check the path" : "check the path and its permissions"
            return .io(file: path, operation: "open", errno: errorNumber, hint: hint)
        }
        if code == elimage_averror(ENOMEM) {
            return .malformedMedia(file: path, frame: nil, reason: "its header cannot be read: \(InputLimits.current.allocationRefusal)")
        }
        return .malformedMedia(
            file: path, frame: nil,
            reason: "libavformat cannot read it as a movie (\(text(code))); it is not a video file, or it is damaged or cut short (an MP4 keeps its index, the 'moov' box, at the end unless written with faststart)")
    }
}
