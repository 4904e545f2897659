import ELImage
import ELImageMedia
import ELImageTesting
import Foundation
import Testing

/// The bundled media and ffmpeg/ffprobe oracles for the movie and still-image tests.
package enum MovieFixtures {
    /// Big Buck Bunny: 1280x720, 25 fps, 132 frames, H.264 Main, untagged, time base 1/12800,
    /// `moov` at the end of the file, one keyframe (frame 0).
    package static let bunny = Repository.path("Examples/Media/bigbuckbunny.mp4")
    package static let bunnyFrameCount = 132
    package static let bunnyTimescale: Int32 = 12800
    /// A 512x600 4:2:0 baseline JPEG.
    package static let hopperJPEG = Repository.path("Examples/Media/grace_hopper.jpg")
    /// A 512x512 RGB PNG.
    package static let astronautPNG = Repository.path("Examples/Media/astronaut.png")

    /// Runs ffmpeg quietly with `arguments` and returns its standard output.
    @discardableResult
    package static func ffmpeg(_ arguments: [String]) throws -> Data {
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments)
    }

    /// ffprobe's `best_effort_timestamp` of every video frame, in the stream's time base ticks.
    package static func probeTimestampTicks(_ path: String) throws -> [Int64] {
        try probeLines(path, ["-show_entries", "frame=best_effort_timestamp"]).compactMap { Int64($0) }
    }

    /// ffprobe's `best_effort_timestamp_time` of every video frame (seconds, 6 decimals).
    package static func probeTimestampSeconds(_ path: String) throws -> [Double] {
        try probeLines(path, ["-show_entries", "frame=best_effort_timestamp_time"]).compactMap { Double($0) }
    }

    /// The video stream's time base, e.g. (1, 12800).
    package static func probeTimeBase(_ path: String) throws -> (num: Int64, den: Int64) {
        let line = try probeLines(path, ["-show_entries", "stream=time_base"]).first ?? ""
        let parts = line.split(separator: "/").compactMap { Int64($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : (0, 0)
    }

    /// (position, size) of each video packet in decoding order.
    package static func probePacketRanges(_ path: String) throws -> [Range<Int>] {
        try probeLines(path, ["-show_entries", "packet=pos,size"]).compactMap { line in
            let fields = line.split(separator: ",").compactMap { Int($0) }
            guard fields.count == 2 else { return nil }
            return fields[1]..<(fields[1] + fields[0])  // ffprobe prints size before pos
        }
    }

    private static func probeLines(_ path: String, _ entries: [String]) throws -> [String] {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0"] + entries + ["-of", "csv=p=0", path])
        return String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }.filter { !$0.isEmpty }
    }

    /// A copy of the clip with its `moov` box first (ffmpeg -movflags +faststart), so that a
    /// truncated copy keeps its index.
    package static func faststartCopy(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("faststart.mp4")
        try ffmpeg(["-i", bunny, "-c", "copy", "-movflags", "+faststart", path])
        return path
    }

    /// The clip scaled to 160x90 (x264, no B-frames, `moov` first) with the original's 132
    /// timestamps in the same 1/12800 time base: the graph tests run on it, as llvmpipe converts
    /// 720p frames slowly.
    package static func smallClip(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("small.mp4")
        try ffmpeg(["-i", bunny, "-an", "-vf", "scale=160:90", "-c:v", "libx264", "-preset", "ultrafast",
                    "-video_track_timescale", "12800", "-movflags", "+faststart", path])
        return path
    }

    /// The first `fraction` of `source`'s bytes, written to `name` in `folder`.
    package static func truncatedCopy(of source: String, fraction: Double, name: String, in folder: TemporaryFolder) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let path = folder.path(name)
        try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A copy of the clip with `count` bytes of seeded garbage from `offset` (inside mdat).
    package static func corruptedCopy(offset: Int, count: Int, in folder: TemporaryFolder) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: bunny))
        data.replaceSubrange(offset..<(offset + count), with: randomBytes(count, seed: 7))
        let path = folder.path("corrupted.mp4")
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Mean and largest absolute difference of the R, G and B bytes of two RGBA images (alpha
    /// ignored), and how many of those bytes differ by more than `limit`. Images of different
    /// sizes, or empty ones, record an issue and compare as entirely different.
    package static func compareRGB(_ left: [UInt8], _ right: [UInt8], limit: Int = 2,
                                   sourceLocation: SourceLocation = #_sourceLocation) -> (mean: Double, max: Int, over: Int) {
        guard left.count == right.count, !left.isEmpty else {
            Issue.record("compared RGBA images of \(left.count) and \(right.count) bytes: another size, or nothing",
                         sourceLocation: sourceLocation)
            return (.infinity, Int.max, max(left.count, right.count))
        }
        var total = 0, worst = 0, over = 0, count = 0
        for index in 0..<left.count where index % 4 != 3 {
            let difference = abs(Int(left[index]) - Int(right[index]))
            total += difference
            worst = max(worst, difference)
            if difference > limit { over += 1 }
            count += 1
        }
        return (count > 0 ? Double(total) / Double(count) : 0, worst, over)
    }
}

/// A sink that records each frame's timestamp and size without reading pixels back, and how many
/// end-of-stream signals it got; tests can wait for either. `delay` makes it slow (it sleeps on the
/// render thread: a slow consumer, which synchronises nothing).
package final class MovieTimestampSink: ImageInput, Sendable {
    package struct Record: Sendable, Equatable {
        package var timestamp: MediaTime
        package var sequenceNumber: Int
        package var width: Int
        package var height: Int
        package var colorSpace: ColorSpace
    }

    private struct State: Sendable {
        package var records: [Record] = []
        package var endings = 0
    }

    package let inputSlots = InputSlots(count: 1)
    private let state = Waitable(State())
    private let delay: Duration
    private let onFrame: (@Sendable (Int) -> Void)?

    /// - Parameter onFrame: called on the render thread with the number of frames received so far,
    ///   after each one.
    package init(delay: Duration = .zero, onFrame: (@Sendable (Int) -> Void)? = nil) {
        self.delay = delay
        self.onFrame = onFrame
    }

    package var received: [Record] { state.value.records }
    package var timestamps: [MediaTime] { received.map(\.timestamp) }
    package var sequenceNumbers: [Int] { received.map(\.sequenceNumber) }
    package var endOfStreamCount: Int { state.value.endings }

    /// Waits until `count` frames in all came; false when the safety-net timeout passed first.
    package func waitForFrames(_ count: Int) async -> Bool { await state.wait { $0.records.count >= count } }

    /// Waits until end-of-stream came; false when the safety-net timeout passed first.
    package func waitForEndOfStream() async -> Bool { await state.wait { $0.endings >= 1 } }

    package func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        if delay > .zero { Thread.sleep(forTimeInterval: delay.timeInterval) }
        var count = 0
        state.update { state in
            state.records.append(Record(timestamp: frame.timestamp, sequenceNumber: frame.sequenceNumber,
                                        width: frame.width, height: frame.height, colorSpace: frame.colorSpace))
            count = state.records.count
        }
        onFrame?(count)
    }

    package func endOfStream(at index: Int, in context: isolated RenderContext) {
        state.update { $0.endings += 1 }
    }
}

/// A suite trait that makes `MovieFixtures.smallClip` once for the whole suite, removes it after,
/// and hands its path to the tests through `SmallClip.path`.
package struct SmallClip: SuiteTrait, TestScoping {
    @TaskLocal package static var path: String?

    /// The clip's path inside a suite marked `.smallClip`.
    package static func require() throws -> String {
        try #require(path, "mark the suite with the .smallClip trait")
    }

    package func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try MovieFixtures.smallClip(in: folder)
        try await Self.$path.withValue(clip) { try await function() }
    }
}

extension Trait where Self == SmallClip {
    /// Makes the small clip for the suite (see `SmallClip`).
    package static var smallClip: Self { SmallClip() }
}
