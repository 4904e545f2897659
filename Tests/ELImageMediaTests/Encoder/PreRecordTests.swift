import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Pre-record (`start(recordingTo:preRecord:)` and `trigger()`): the frames wait in memory and the
/// file starts the pre-record time before the trigger, decoding from the keyframe before it, with
/// its sound; memory stays bounded; no trigger writes nothing. The frames carry their numbers
/// (`NumberedFrames`), read back from the decoded file.
@Suite("Pre-record", .closesContexts)
struct PreRecordTests {
    /// 25 fps, a keyframe every second once recording.
    static var settings: EncoderSettings {
        var settings = EncoderSettings()
        settings.frameRate = 25
        settings.keyframeInterval = 25
        settings.rateControl = .constantQuality(18)
        return settings
    }

    @Test("the file starts the pre-record time before the trigger, to the frame, and goes on")
    func startsBeforeTrigger() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        let path = folder.path("event.mp4")
        try encoder.start(recordingTo: path, preRecord: .milliseconds(1800))
        try await NumberedFrames.feed(0..<100, into: input, on: context)
        #expect(encoder.currentState == .waitingForTrigger)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty, "a file exists before the trigger")
        // The trigger comes with frame 100 (4.0 s): the file starts 1.8 s before, at frame 55 (a
        // keyframe, as every frame is while the recording waits).
        #expect(encoder.trigger() == .milliseconds(2200))
        #expect(encoder.trigger() == nil)
        #expect(encoder.currentState == .recording)
        try await NumberedFrames.feed(100..<150, into: input, on: context)
        let summary = try await encoder.finish()
        await context.close()

        let numbers = try NumberedFrames.decodedNumbers(of: [path], in: folder)
        #expect(numbers == Array(55..<150))
        let packets = try NumberedFrames.videoPackets(path)
        #expect(packets.first?.keyframe == true)
        // After the trigger (frame 100, 1.8 s into the file) the encoder keeps its own interval
        // (25, and scene cuts): no longer every frame a keyframe.
        let keyframesAfter = packets.filter { $0.keyframe && $0.pts >= 1.8 - 1e-6 }.count
        #expect(keyframesAfter < 10, "\(keyframesAfter) keyframes among the 50 frames after the trigger")
        let shown = try EncoderFixtures.probeFrameTimes(path)
        #expect(shown.first.map { abs($0) < 1e-6 } == true, "the first frame is shown at \(shown.first ?? -1) s")
        #expect(summary.statistics.framesIn == 150)
        #expect(summary.statistics.encoded == 95)
        #expect(summary.statistics.preRecordDiscarded == 55)
        #expect(summary.statistics.dropped == 0)
        #expect(summary.statistics.preRecordPeakBytes > 0)
    }

    @Test("a window shorter than the frames the encoder holds back: the file still starts at its frame")
    func shortWindow() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        let path = folder.path("short.mp4")
        // 0.2 s: five frames, fewer than x264's lookahead holds.
        try encoder.start(recordingTo: path, preRecord: .milliseconds(200))
        try await NumberedFrames.feed(0..<100, into: input, on: context)
        #expect(encoder.trigger() == .milliseconds(3800))
        try await NumberedFrames.feed(100..<130, into: input, on: context)
        _ = try await encoder.finish()
        await context.close()
        let numbers = try NumberedFrames.decodedNumbers(of: [path], in: folder)
        #expect(numbers == Array(95..<130))
    }

    @Test("memory holds the window, however long the recording waits")
    func memoryBound() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        let path = folder.path("bounded.mp4")
        try encoder.start(recordingTo: path, preRecord: .seconds(1))
        // Eight seconds of the same picture: every frame the same keyframe size.
        let frame = NumberedFrames.frame(7)
        try await EncoderFixtures.feed(Array(repeating: frame, count: 200), into: input, on: context, timestamps: NumberedFrames.times(0..<200))
        #expect(encoder.trigger() == .seconds(7))
        try await EncoderFixtures.feed([frame], into: input, on: context, timestamps: NumberedFrames.times(200..<201))
        let summary = try await encoder.finish()
        await context.close()

        let sizes = try NumberedFrames.videoPacketSizes(path)
        #expect(sizes.count == 26)  // frames 175...200
        let (smallest, largest) = (Int64(sizes.prefix(25).min() ?? 0), Int64(sizes.prefix(25).max() ?? 0))
        let peak = summary.statistics.preRecordPeakBytes
        // The window (25 frames) and the frame before its start: 26, or 27 as the newest arrives.
        #expect(peak >= 25 * smallest && peak <= 27 * largest, "peak \(peak) bytes; a frame is \(smallest)...\(largest) bytes")
        #expect(summary.statistics.preRecordDiscarded == 175)
    }

    @Test("a trigger before the window has filled: the file starts at the first frame; a time pattern names it then")
    func earlyTrigger() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        let before = Date()
        try encoder.start(recordingTo: folder.path("event-%Y%m%d-%H%M%S.mp4"), preRecord: .seconds(5))
        try await NumberedFrames.feed(0..<10, into: input, on: context)
        #expect(encoder.trigger() == .zero)
        try await NumberedFrames.feed(10..<40, into: input, on: context)
        let summary = try await encoder.finish()
        await context.close()
        // Named at its first frame's wall-clock time.
        let name = URL(fileURLWithPath: summary.path).lastPathComponent
        let stamp = try #require(name.wholeMatch(of: /event-(\d{8}-\d{6})\.mp4/), "\(name)")
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let date = try #require(formatter.date(from: String(stamp.1)))
        #expect(date >= before.addingTimeInterval(-1) && date <= Date().addingTimeInterval(1))
        #expect(summary.files == [summary.path])
        #expect(try NumberedFrames.decodedNumbers(of: [summary.path], in: folder) == Array(0..<40))
    }

    @Test("pre-record into segments: the first file starts at the trigger less the window, the cuts count from there")
    func intoSegments() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        try encoder.start(recordingTo: folder.path("cam.mp4"), segments: RecordingSegments(every: .duration(.milliseconds(800))),
                          preRecord: .seconds(1))
        try await NumberedFrames.feed(0..<60, into: input, on: context)
        #expect(encoder.trigger() == .milliseconds(1400))  // frame 60 less 25 frames: frame 35
        try await NumberedFrames.feed(60..<120, into: input, on: context)
        let summary = try await encoder.finish()
        await context.close()
        // Frames 35...119 in files of 20 frames (0.8 s) from frame 35: 35, 55, 75, 95, 115.
        #expect(summary.files.count == 5, "\(summary.files)")
        #expect(try NumberedFrames.decodedNumbers(of: summary.files, in: folder) == Array(35..<120))
        let counts = try summary.files.map { try NumberedFrames.videoPackets($0).count }
        #expect(counts == [20, 20, 20, 20, 5])
    }

    @Test("a folder that does not exist fails at start, not at the trigger, saying what would have been written; segments say theirs")
    func missingFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let missing = folder.path("gone") + "/clip.mp4"
        let encoder = try VideoEncoder(settings: Self.settings)
        #expect {
            try encoder.start(recordingTo: missing, preRecord: .seconds(1))
        } throws: { error in
            "\(error)".contains("write a pre-recorded file in the folder of") && "\(error)".contains(missing)
        }
        #expect {
            try encoder.start(recordingTo: missing, segments: RecordingSegments(every: .duration(.seconds(2))))
        } throws: { error in
            "\(error)".contains("create segments in the folder of") && "\(error)".contains(missing)
        }
    }

    @Test("no trigger: nothing is written and finish() says why")
    func noTrigger() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder(Self.settings)
        try encoder.start(recordingTo: folder.path("never.mp4"), preRecord: .seconds(1))
        try await NumberedFrames.feed(0..<30, into: input, on: context)
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
        try await NumberedFrames.feed(0..<75, into: input, on: context)
        encoder.trigger()  // at 3.0 s: the file starts at 2.0 s
        try await NumberedFrames.feed(75..<125, into: input, on: context)
        _ = try await encoder.finish()
        await context.close()

        let numbers = try NumberedFrames.decodedNumbers(of: [path], in: folder)
        #expect(numbers == Array(50..<125))
        let shownSeconds = 3.0
        let audio = try AudioProbe.packetEnds(path, kind: "a")
        let lastFrame = try #require(try NumberedFrames.videoPackets(path).map(\.pts).max())
        let audioEnd = try #require(audio.max())
        // The sound covers the frames shown, from within one AAC packet (21.3 ms) of the start,
        // and ends with the last frame.
        #expect(abs(lastFrame - (shownSeconds - 0.04)) < 0.005, "the last frame starts at \(lastFrame) s")
        #expect(audioEnd >= lastFrame + 0.039 && audioEnd <= lastFrame + 0.04 + 0.022, "the sound ends at \(audioEnd) s")
        let seconds = Double(audio.count) * 1024 / 48_000
        #expect(abs(seconds - shownSeconds) < 0.03, "\(audio.count) sound packets: \(seconds) s for \(shownSeconds) s of frames")
    }
}
