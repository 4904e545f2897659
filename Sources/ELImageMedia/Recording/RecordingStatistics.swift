import ELImage
import Foundation

/// Counters of a recording, live while it runs (`VideoEncoder.statistics`).
///
/// Every frame taken in is accounted for: once a recording has ended,
/// `framesIn == encoded + dropped + preRecordDiscarded`.
public struct RecordingStatistics: Sendable, Equatable {
    /// Frames the recording took in (while recording and not paused).
    public var framesIn = 0
    /// Frames encoded and handed to the container.
    public var encoded = 0
    /// Frames taken in but not recorded: dropped because the queue was full (`.drop` policy),
    /// whose GPU conversion failed, lost to a failure, or still queued when a size limit ended
    /// the recording.
    public var dropped = 0
    /// Of `dropped`, those dropped because the queue was full.
    public var droppedQueueFull = 0
    /// Bytes written to the file so far (the container's buffered fragment is not counted until
    /// it is flushed).
    public var bytesWritten: Int64 = 0
    /// Fragments (MP4) or syncs (Annex B) written and flushed to disk.
    public var fragmentsWritten = 0
    /// Stream time of the frames recorded so far, from the first frame (pauses excluded).
    public var recordedDuration: Duration = .zero
    /// Frames encoded per second of wall-clock time since the first frame arrived.
    public var achievedFramesPerSecond: Double = 0
    /// The most frames that waited in the queue at once.
    public var queueHighWater = 0
    /// Time the encoder thread spent waiting for the GPU's conversions (fences) and reading the
    /// planes back.
    public var readbackTime: Duration = .zero
    /// Time the encoder thread spent in x264 and writing the file. With `readbackTime`, what a
    /// frame costs the encoder thread: if it exceeds the frame interval, the queue fills up.
    public var encodeTime: Duration = .zero
    /// The audio track's counters (all zero without one).
    public var audio = AudioStatistics()
    /// Pre-record: frames encoded into memory while the recording waited for its trigger and let
    /// go as they fell out of the window (never in a file). `framesIn == encoded + dropped +
    /// preRecordDiscarded` once a recording has ended.
    public var preRecordDiscarded = 0
    /// Pre-record: the most bytes of encoded frames held in memory at once (the window's frames,
    /// keyframes all).
    public var preRecordPeakBytes: Int64 = 0
    /// A live stream's counters (frames sent and dropped, reconnections); nil for a file.
    public var stream: StreamStatistics?

    public init() {}
}

/// Why a recording ended.
public enum RecordingStopReason: Sendable, Equatable {
    /// `stop()` was called.
    case requested
    /// The source sent end-of-stream (`EncoderSettings.finishesAtEndOfStream`).
    case endOfStream
    /// `RecordingLimits.maximumDuration` was reached.
    case durationLimit
    /// `RecordingLimits.maximumBytes` was reached.
    case sizeLimit
}

/// What a finished recording wrote.
public struct RecordingSummary: Sendable, Equatable {
    /// The file.
    public let path: String
    /// Why it ended.
    public let reason: RecordingStopReason
    /// The final counters.
    public let statistics: RecordingStatistics
    /// The picture size recorded.
    public let width: Int
    public let height: Int
    /// The colour space frames were converted with and tagged as.
    public let colorSpace: ColorSpace
    /// The stream's time base (ticks per second).
    public let timescale: Int32
    /// The wall-clock time the first frame reached the encoder: the MP4's `creation_time`, and
    /// the origin of the wall-clock times in its fragments' `prft` boxes.
    public let startDate: Date
    /// The files the recording left, in order: `path` alone, or a segmented recording's files
    /// (the newest ones only, in loop recording).
    public let files: [String]
}

/// A file of a segmented recording (`RecordingSegments`), complete and in place.
public struct SegmentInfo: Sendable, Equatable {
    /// 1 for the first file of the recording.
    public let index: Int
    /// The file.
    public let path: String
    /// The frames it holds.
    public let frames: Int
    /// The recording time of its first frame (zero for the first file): where it sits in the
    /// whole recording.
    public let start: Duration
    /// The stream time it covers.
    public let duration: Duration
    /// Its size.
    public let bytes: Int64
    /// The wall-clock time of its first frame (its MP4's `creation_time`).
    public let startDate: Date
}

/// What a `VideoEncoder` tells of its recording, as messages on its render context's event
/// stream (`RenderEvent.message`; read them with `event.message(RecordingEvent.self)`), published
/// on the encoder thread. A failure is the context's `.failed` event, and the end of the output
/// its `.sinkFinished`, as for every sink.
public enum RecordingEvent: NodeMessage {
    /// The first frame of a recording arrived and the encoder opened with this size.
    case started(path: String, width: Int, height: Int)
    /// A fragment was written and flushed to disk.
    case fragmentWritten(FragmentInfo)
    /// A file of a segmented recording is complete and in place (the last one just before
    /// `.finished`).
    case segmentFinished(SegmentInfo)
    /// Loop recording (`RecordingSegments.keepingLast`) deleted this older file of the recording.
    case segmentDeleted(path: String)
    /// The recording ended and its file is complete.
    case finished(RecordingSummary)
    /// The recording was thrown away (`VideoEncoder.discard()`) and its file removed.
    case discarded(path: String)

    public var description: String {
        switch self {
        case let .started(path, width, height): "recording \(width)x\(height) to \(path)"
        case let .fragmentWritten(fragment):
            "fragment \(fragment.index) written: \(fragment.framesCompleted) frames, \(fragment.bytes) bytes"
        case let .segmentFinished(segment): "file \(segment.index) complete: \(segment.path), \(segment.frames) frames"
        case let .segmentDeleted(path): "deleted \(path) (loop recording)"
        case let .finished(summary): "finished \(summary.path) (\(summary.reason))"
        case let .discarded(path): "discarded; \(path) removed"
        }
    }
}
