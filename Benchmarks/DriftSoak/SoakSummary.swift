import ELImageMedia
import Foundation

/// The figures of one soak: the offset at the start and the end, its extremes and trend, what
/// the drift would have done uncorrected, and what the capture and the encoder counted.
struct SoakSummary: Codable {
    var seconds: Double
    var ppm: Double
    var frameMilliseconds: Double
    var clicks: Int
    /// Means of the first and the last five clicks' offsets (ms; positive: sound late).
    var startOffsetMilliseconds: Double
    var endOffsetMilliseconds: Double
    var smallestOffsetMilliseconds: Double
    var largestOffsetMilliseconds: Double
    /// The least-squares trend of the offsets, in ms per hour.
    var trendMillisecondsPerHour: Double
    /// Where the offset would end without correction: start + ppm × duration.
    var uncorrectedEndMilliseconds: Double
    var measuredDriftPPM: Double?
    var samplesDropped: Int64?
    var samplesInserted: Int64?
    var framesEncoded: Int
    var framesDroppedByEncoder: Int
    var framesLostByCamera: Int
    var framesMissingInFile: Int
    var videoResidualMilliseconds: Double
    var withinOneFrame: Bool

    init(analysis: OffsetAnalysis, recording: SoakRecording.Result, ppm: Double, framesPerSecond: Int) {
        let offsets = analysis.points.map(\.offsetMilliseconds)
        let statistics = recording.summary.statistics
        seconds = statistics.recordedDuration.timeInterval
        self.ppm = ppm
        frameMilliseconds = 1000 / Double(framesPerSecond)
        clicks = offsets.count
        let head = offsets.prefix(5), tail = offsets.suffix(5)
        startOffsetMilliseconds = head.isEmpty ? 0 : head.reduce(0, +) / Double(head.count)
        endOffsetMilliseconds = tail.isEmpty ? 0 : tail.reduce(0, +) / Double(tail.count)
        smallestOffsetMilliseconds = offsets.min() ?? 0
        largestOffsetMilliseconds = offsets.max() ?? 0
        trendMillisecondsPerHour = (StraightLine(fitting: analysis.points.map { ($0.time, $0.offsetMilliseconds) })?.slope ?? 0) * 3600
        uncorrectedEndMilliseconds = startOffsetMilliseconds + ppm * seconds / 1000
        measuredDriftPPM = recording.capture?.driftPPM
        samplesDropped = recording.capture?.samplesDropped
        samplesInserted = recording.capture?.samplesInserted
        framesEncoded = statistics.encoded
        framesDroppedByEncoder = statistics.dropped
        framesLostByCamera = recording.framesLostByDriver
        framesMissingInFile = analysis.framesMissing
        videoResidualMilliseconds = analysis.videoResidualMilliseconds
        withinOneFrame = clicks >= 3 && abs(endOffsetMilliseconds) <= frameMilliseconds
    }

    var text: String {
        let drift = measuredDriftPPM.map { String(format: "%.1f ppm", $0) } ?? "none"
        return String(format: """
            %.0f s recorded: %d frames encoded (%d dropped by the encoder, %d lost by the camera, %d missing in the file), \
            video within %.1f ms of capture
            sound: drift measured %@, %lld samples dropped, %lld inserted
            A/V offset (sound − video) at %d clicks: start %+.1f ms, end %+.1f ms, range %+.1f … %+.1f ms, \
            trend %+.1f ms/h; uncorrected it would end at %+.1f ms
            %@: the offset at the end is %@ one frame (%.0f ms)
            """, seconds, framesEncoded, framesDroppedByEncoder, framesLostByCamera, framesMissingInFile,
            videoResidualMilliseconds, drift, samplesDropped ?? 0, samplesInserted ?? 0, clicks,
            startOffsetMilliseconds, endOffsetMilliseconds, smallestOffsetMilliseconds, largestOffsetMilliseconds,
            trendMillisecondsPerHour, uncorrectedEndMilliseconds, withinOneFrame ? "PASS" : "FAIL",
            withinOneFrame ? "within" : "beyond", frameMilliseconds)
    }
}
