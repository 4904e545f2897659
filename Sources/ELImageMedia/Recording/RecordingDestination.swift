/// Where a recording's packets go: one file (a writer opened when the recording starts), the
/// files of a segmented recording, each created when its first frame is encoded, or a live stream.
enum RecordingDestination: Sendable {
    case file(any MediaFileWriter)
    /// A file created when its first packet is written (a pre-recording recording's, which
    /// writes nothing until its trigger), its name a pattern expanded then.
    case deferredFile(SegmentFileNames)
    case segments(SegmentFileNames, RecordingSegments)
    /// A live stream (RTMP, SRT, HLS): packets go to its network thread.
    case stream(StreamTarget, LiveStreamOptions)

    /// The file, or the segments' pattern: what messages name.
    var path: String {
        switch self {
        case .file(let writer): writer.path
        case .deferredFile(let names): names.pattern
        case .segments(let names, _): names.pattern
        case .stream(let target, _): target.description
        }
    }
}
