import Foundation

/// How a recording is split into files, as dash-cams and surveillance recorders do: a new file
/// starts every `length` (of stream time, or of bytes), each starting with a keyframe, so that
/// every file plays by itself and the files played one after the other show every frame once.
///
/// ```swift
/// // cam-20261127-210000.mp4, cam-20261127-211000.mp4, ... keeping the newest six
/// try encoder.start(recordingTo: "cam-%Y%m%d-%H%M%S.mp4",
///                   segments: RecordingSegments(every: .duration(.seconds(600)), keepingLast: 6))
/// ```
///
/// **Cuts.** The encoder makes the first frame at or past a segment's length an IDR picture and
/// the new file starts with it: its times start from zero, its sound continues where the last
/// file's stopped (a packet of sound that straddles the cut stays in the file it starts in), and
/// no frame or sound packet is lost or repeated across files.
///
/// **Names.** A pattern with `%` conversions is expanded with `strftime` at the wall-clock time of
/// each file's first frame (local time: `%Y %m %d %H %M %S %F %T %j %s` and the others listed in
/// `SegmentFileNames.timeConversions`); two files that would get the same name get `-2`, `-3`
/// before the extension. A name without `%` gets the file's number: `clip.mp4` becomes
/// `clip-00001.mp4`, `clip-00002.mp4`, ...
///
/// **Loop recording.** With `keepingLast`, once a file is complete the oldest files of this
/// recording beyond that many are deleted (only files this recording wrote).
public struct RecordingSegments: Sendable, Equatable {
    /// Where a segment ends.
    public enum Length: Sendable, Equatable {
        /// After this much stream time (pauses excluded): the first frame at or past it starts
        /// the next file.
        case duration(Duration)
        /// When the file would grow past this many bytes: the next frame starts the next file
        /// (the frames x264 still holds end the last one, so a file may pass it by a few frames).
        case bytes(Int64)
    }

    /// Where each segment ends.
    public var length: Length
    /// Keeps only the newest files (loop recording); `nil` keeps every file.
    public var keepingLast: Int?

    public init(every length: Length, keepingLast: Int? = nil) {
        self.length = length
        self.keepingLast = keepingLast
    }

    /// The smallest size a segment may be given.
    public static let smallestBytes: Int64 = 16_384

    /// Why these segments cannot work, or nil.
    var problem: String? {
        switch length {
        case .duration(let duration) where duration <= .zero: return "a segment's duration must be positive (got \(duration))"
        case .bytes(let bytes) where bytes < Self.smallestBytes: return "a segment's size must be at least 16 KiB (got \(bytes) bytes)"
        default: break
        }
        if let keep = keepingLast, keep < 1 { return "keepingLast must be at least 1 (got \(keep))" }
        return nil
    }
}
