import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Pre-record (`start(recordingTo:preRecord:)` and `trigger()`): the frames wait in memory and the
/// file starts the pre-record time before the trigger, decoding from the keyframe before it, with
/// its sound; memory stays bounded; no trigger writes nothing. The frames carry their numbers
/// (`SegmentedRecordingTests.numberedFrame`), read back from the decoded file.
@Suite("Pre-record")
struct PreRecordTests {
    /// 25 fps, a keyframe every second.
    static var settings: EncoderSettings {
        var settings = EncoderSettings()
        settings.frameRate = 25
        settings.keyframeInterval = 25
        settings.rateControl = .constantQuality(18)
        return settings
    }

    static func times(_ range: Range<Int>) -> [MediaTime] { range.map { MediaTime(frame: Int64($0), framesPerSecond: 25) } }

    @Test("the file starts the pre-record time before the trigger (or at the keyframe before) and goes on; memory stays within the window")
    func startsBeforeTrigger() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        let path = folder.path("event.mp4")
        try encoder.start(recordingTo: path, preRecord: .milliseconds(1800))
        let frames = (0..<150).map { SegmentedRecordingTests.numberedFrame($0) }
        try await EncoderFixtures.feed(Array(frames[0..<100]), into: input, on: context, timestamps: Self.times(0..<100))
        #expect(encoder.currentState == .waitingForTrigger)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty, "a file exists before the trigger")
        // The trigger comes with frame 100 (4.0 s): the file starts 1.8 s before, at frame 55, or
        // at the keyframe before it (a file starts with a keyframe; one a second here).
        #expect(encoder.trigger())
        #expect(!encoder.trigger())
        #expect(encoder.currentState == .recording)
        try await EncoderFixtures.feed(Array(frames[100..<150]), into: input, on: context, timestamps: Self.times(100..<150))
        let summary = try await encoder.finish()
        await context.close()

        let numbers = try SegmentedRecordingTests.decodedNumbers(of: [path], in: folder)
        let first = try #require(numbers.first)
        #expect(first <= 55 && first > 55 - 25, "the file starts at frame \(first)")
        #expect(numbers == Array(first..<150))
        #expect(try SegmentedRecordingTests.videoPackets(path).first?.keyframe == true)
        let shown = try EncoderFixtures.probeFrameTimes(path)
        #expect(shown.first.map { abs($0) < 1e-6 } == true, "the first frame is shown at \(shown.first ?? -1) s")
        #expect(summary.statistics.framesIn == 150)
        #expect(summary.statistics.encoded == 150 - first)
        #expect(summary.statistics.preRecordDiscarded == first)
        #expect(summary.statistics.dropped == 0)
        // Held: at most the window and one keyframe interval (70 frames) of these small frames.
        let largest = try SegmentedRecordingTests.videoPacketSizes(path).max() ?? 0
        #expect(summary.statistics.preRecordPeakBytes > 0)
        #expect(summary.statistics.preRecordPeakBytes <= Int64(72 * largest), "peak \(summary.statistics.preRecordPeakBytes), largest \(largest)")
    }

    @Test("a trigger before the window has filled: the file starts at the first frame")
    func earlyTrigger() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        let path = folder.path("early.mp4")
        try encoder.start(recordingTo: path, preRecord: .seconds(5))
        let frames = (0..<40).map { SegmentedRecordingTests.numberedFrame($0) }
        try await EncoderFixtures.feed(Array(frames[0..<10]), into: input, on: context, timestamps: Self.times(0..<10))
        encoder.trigger()
        try await EncoderFixtures.feed(Array(frames[10..<40]), into: input, on: context, timestamps: Self.times(10..<40))
        _ = try await encoder.finish()
        await context.close()
        #expect(try SegmentedRecordingTests.decodedNumbers(of: [path], in: folder) == Array(0..<40))
    }

    @Test("no trigger: nothing is written and finish() says why")
    func noTrigger() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        try encoder.start(recordingTo: folder.path("never.mp4"), preRecord: .seconds(1))
        try await EncoderFixtures.feed((0..<30).map { SegmentedRecordingTests.numberedFrame($0) }, into: input, on: context,
                                       timestamps: Self.times(0..<30))
        await #expect {
            try await encoder.finish()
        } throws: { error in
            "\(error)".contains("trigger")
        }
        await context.close()
        #expect(encoder.statistics.preRecordDiscarded == 30)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test("with sound: the file's sound starts with its first frame and ends with its last")
    func withSound() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        let path = folder.path("sound.mp4")
        let track = try #require(try MovieAudioReader.openForMP4(path: EncoderFixtures.bunny))
        try encoder.start(recordingTo: path, preRecord: .seconds(1), audio: .track(track))
        let frames = (0..<125).map { SegmentedRecordingTests.numberedFrame($0) }
        try await EncoderFixtures.feed(Array(frames[0..<75]), into: input, on: context, timestamps: Self.times(0..<75))
        encoder.trigger()  // at 3.0 s: the file starts at 2.0 s, or the keyframe before
        try await EncoderFixtures.feed(Array(frames[75..<125]), into: input, on: context, timestamps: Self.times(75..<125))
        _ = try await encoder.finish()
        await context.close()

        let numbers = try SegmentedRecordingTests.decodedNumbers(of: [path], in: folder)
        let first = try #require(numbers.first)
        #expect(first <= 50 && first > 25 && numbers == Array(first..<125), "frames \(numbers)")
        let shownSeconds = Double(125 - first) / 25
        let audio = try AudioProbe.packetEnds(path, kind: "a")
        let lastFrame = try #require(try SegmentedRecordingTests.videoPackets(path).map(\.pts).max())
        let audioEnd = try #require(audio.max())
        // The sound covers the frames shown, from within one AAC packet (21.3 ms) of the start,
        // and ends with the last frame.
        #expect(abs(lastFrame - (shownSeconds - 0.04)) < 0.005, "the last frame starts at \(lastFrame) s")
        #expect(audioEnd >= lastFrame + 0.039 && audioEnd <= lastFrame + 0.04 + 0.022, "the sound ends at \(audioEnd) s")
        let seconds = Double(audio.count) * 1024 / 48_000
        #expect(abs(seconds - shownSeconds) < 0.03, "\(audio.count) sound packets: \(seconds) s for \(shownSeconds) s of frames")
    }
}
