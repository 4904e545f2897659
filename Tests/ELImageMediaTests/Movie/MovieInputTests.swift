import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

// MovieInput in a graph on the GPU: pixels against ffmpeg's decode and conversion, timestamps
// through a filter, seeking, frame ranges, looping, real-time pacing and damaged files.

@Suite("Movie input", .closesContexts, .serialized, .smallClip)
struct MovieInputTests {
    @Test("A frame converted to RGBA matches ffmpeg's decode + swscale conversion within 2 levels")
    func rgbaMatchesFFmpeg() async throws {
        let context = try TestContexts.make()
        let number = 60
        let movie = try MovieInput(path: MovieFixtures.bunny, options: .init(frameRange: number..<(number + 1)))
        let (output, images) = imageCollector()
        movie --> output
        try await movie.run(on: context)
        let image = try #require(images.values.first)
        #expect(images.count == 1)
        #expect(image.timestamp == MediaTime(value: Int64(number) * 512, timescale: 12800))
        #expect(image.width == 1280 && image.height == 720)

        // ffmpeg's reference: chroma upsampled to 4:4:4 first at H.264's left siting (swscale's
        // one-step yuv420p→rgba path does not honour in_v_chr_pos and puts chroma half a row low),
        // then BT.709 limited range to RGB.
        let filter = "select=eq(n\\,\(number)),"
            + "scale=in_h_chr_pos=0:in_v_chr_pos=128:flags=accurate_rnd+full_chroma_int+bilinear,format=yuv444p,"
            + "scale=in_color_matrix=bt709:in_range=tv:flags=accurate_rnd+full_chroma_int+bilinear,format=rgba"
        let reference = try [UInt8](MovieFixtures.ffmpeg(["-i", MovieFixtures.bunny, "-vf", filter, "-vframes", "1",
                                                           "-f", "rawvideo", "-pix_fmt", "rgba", "-"]))
        #expect(reference.count == image.pixels.count)
        let difference = MovieFixtures.compareRGB(image.pixels, reference)
        print("MovieInput frame \(number) RGBA vs ffmpeg: mean \(difference.mean), max \(difference.max), \(difference.over) values over 2")
        #expect(difference.max <= 2, "mean \(difference.mean), max \(difference.max), \(difference.over) values over 2")
        #expect(difference.mean < 0.5)
    }

    @Test("File → Grayscale → sink keeps every frame and ffprobe's timestamp, then end-of-stream")
    func transcodeKeepsFramesAndTimestamps() async throws {
        let clip = try SmallClip.require()
        let expected = try MovieFixtures.probeTimestampTicks(clip).map { MediaTime(value: $0, timescale: 12800) }
        // The bundled clip's timeline: 132 frames every 512 ticks of 1/12800 s.
        #expect(expected == (0..<132).map { MediaTime(value: Int64($0) * 512, timescale: 12800) })
        #expect(expected == (try MovieFixtures.probeTimestampTicks(MovieFixtures.bunny)).map { MediaTime(value: $0, timescale: 12800) })

        let context = try TestContexts.make()
        let movie = try MovieInput(path: clip)
        let sink = MovieTimestampSink()
        movie --> Grayscale() --> sink
        try await movie.run(on: context)
        #expect(sink.timestamps.count == MovieFixtures.bunnyFrameCount)
        #expect(sink.timestamps == expected)
        #expect(sink.timestamps.allSatisfy { $0.timescale == 12800 })
        // Untagged and below 720 lines: BT.601.
        #expect(sink.received.allSatisfy { $0.width == 160 && $0.height == 90 && $0.colorSpace == .bt601 })
        #expect(sink.endOfStreamCount == 1)
        let statistics = movie.statistics
        #expect(statistics.produced == 132 && statistics.delivered == 132 && statistics.dropped == 0 && statistics.damaged == 0)
    }

    @Test("The input's properties come from the file")
    func properties() throws {
        let movie = try MovieInput(path: MovieFixtures.bunny)
        #expect(movie.path == MovieFixtures.bunny)
        #expect(movie.codecName == "h264" && movie.size.width == 1280 && movie.size.height == 720)
        #expect(movie.frameRate == Y4MHeader.Ratio(25, 1))
        #expect(movie.duration == MediaTime(value: 67584, timescale: 12800))
        #expect(movie.colorSpace == .bt709)
        let overridden = try MovieInput(path: MovieFixtures.bunny, options: .init(colorSpace: .bt601))
        #expect(overridden.colorSpace == .bt601)
    }

    @Test("start: the first frame at or after the time")
    func seekToStart() async throws {
        let clip = try SmallClip.require()
        let context = try TestContexts.make()
        let movie = try MovieInput(path: clip,
                                   options: .init(start: MediaTime(value: 2, timescale: 1), frameRange: 0..<53))
        let sink = MovieTimestampSink()
        movie --> sink
        try await movie.run(on: context)
        // Frames 50, 51, 52 (2.00, 2.04, 2.08 s): the start and the range's end both apply.
        #expect(sink.timestamps == [50, 51, 52].map { MediaTime(value: $0 * 512, timescale: 12800) })
        #expect(sink.endOfStreamCount == 1)
    }

    @Test("frameRange: exactly those frames")
    func frameRange() async throws {
        let clip = try SmallClip.require()
        let context = try TestContexts.make()
        let movie = try MovieInput(path: clip, options: .init(frameRange: 10..<15))
        let sink = MovieTimestampSink()
        movie --> sink
        try await movie.run(on: context)
        #expect(sink.timestamps == (10..<15).map { MediaTime(value: Int64($0) * 512, timescale: 12800) })
        #expect(movie.statistics.produced == 5 && movie.statistics.delivered == 5)
    }

    @Test("loop: the range again and again with increasing timestamps, until cancel()")
    func loopUntilCancelled() async throws {
        let clip = try SmallClip.require()
        let context = try TestContexts.make()
        let movie = try MovieInput(path: clip, options: .init(loop: true, frameRange: 3..<6))
        let sink = MovieTimestampSink { [weak movie] count in if count == 8 { movie?.cancel() } }  // weak: movie keeps sink
        movie --> sink
        try await movie.run(on: context)
        // Frames 3, 4, 5, then again from 3 placed after 5: 0.12 ... 0.40 s in steps of 0.04 s.
        #expect(sink.timestamps == (3..<11).map { MediaTime(value: Int64($0) * 512, timescale: 12800) })
        #expect(sink.endOfStreamCount == 1)
    }

    @Test("Real time with a slow sink: late frames are dropped and counted; as fast as possible drops none")
    func realTimeDropsLateFrames() async throws {
        let clip = try SmallClip.require()
        let clock = ManualClock()
        let context = try TestContexts.make(clock: clock)
        // 20 frames, 40 ms apart, into a sink that takes 150 ms of the context's clock per frame.
        let realTime = try MovieInput(path: clip, options: .init(pacing: .realTime, frameRange: 0..<20))
        let slow = MovieTimestampSink { _ in clock.advance(by: .milliseconds(150)) }
        realTime --> slow
        try await realTime.run(on: context)
        // Independently: frame n is due at 40n ms and shown if the clock is at most one frame (40 ms) past that.
        var now = 0, shown: [Int] = []
        for frame in 0..<20 where now <= 40 * frame + 40 {
            shown.append(frame)
            now = max(now, 40 * frame) + 150
        }
        let statistics = realTime.statistics
        #expect(statistics.produced == 20)
        #expect(slow.timestamps == shown.map { MediaTime(value: Int64($0) * 512, timescale: 12800) })
        #expect(statistics.delivered == shown.count && statistics.dropped == 20 - shown.count)
        #expect(statistics.dropped > 5)

        // The same slow sink as fast as possible: nothing dropped, the decoder waited.
        let fast = try MovieInput(path: clip, options: .init(frameRange: 0..<6))
        let fastSink = MovieTimestampSink(delay: .milliseconds(100))
        fast --> fastSink
        try await fast.run(on: context)
        #expect(fast.statistics.dropped == 0 && fast.statistics.delivered == 6)
        #expect(fastSink.timestamps == (0..<6).map { MediaTime(value: Int64($0) * 512, timescale: 12800) })
    }

    @Test("Real time paces frames by their timestamps on the context's clock")
    func realTimePacing() async throws {
        let clip = try SmallClip.require()
        let clock = ManualClock()
        let context = try TestContexts.make(clock: clock)
        let movie = try MovieInput(path: clip, options: .init(pacing: .realTime, frameRange: 0..<10))
        let shownAt = Locked<[Duration]>([])
        let sink = MovieTimestampSink { _ in shownAt.withLock { $0.append(clock.elapsed) } }
        movie --> sink
        let run = Task { try await movie.run(on: context) }
        for frame in 1..<10 {
            // Each frame waits on the clock for its timestamp, 40 ms after the one before. The
            // pacing wait also wakes when the sink takes a frame and then waits again, so the test
            // waits for the deadline itself rather than reading the pending waits once.
            let due = clock.start + .milliseconds(40 * frame)
            #expect(await sink.waitForFrames(frame))
            #expect(await clock.waitForDeadlines([due]))
            #expect(sink.received.count == frame)
            clock.advance(to: due)
        }
        try await run.value
        // Frame n (n × 512 / 12800 s = 40n ms) is shown 40n ms after frame 0, to the instant.
        #expect(shownAt.withLock { $0 } == (0..<10).map { .milliseconds(40 * $0) })
        #expect(movie.statistics.delivered == 10 && movie.statistics.dropped == 0)
    }

    @Test("A file cut short: the frames before the cut, damage reported, end-of-stream, then the error")
    func truncatedRun() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try SmallClip.require()
        let path = try MovieFixtures.truncatedCopy(of: clip, fraction: 0.6, name: "cut.mp4", in: folder)
        let expected = try MovieFixtures.probeTimestampTicks(path).map { MediaTime(value: $0, timescale: 12800) }
        #expect(expected.count > 50 && expected.count < 120)

        let context = try TestContexts.make()
        let reports = Collector<NodeFailure>()
        context.setErrorHandler { reports.append($0) }
        let movie = try MovieInput(path: path)
        let sink = MovieTimestampSink()
        movie --> sink
        let error = await #expect(throws: ELImageError.self) { try await movie.run(on: context) }
        #expect(sink.timestamps == expected)
        #expect(sink.endOfStreamCount == 1)
        guard case .malformedMedia(path, let frame?, let reason)? = error else {
            Issue.record("expected malformedMedia for \(path), got \(String(describing: error))")
            return
        }
        #expect(frame == expected.count && reason.contains("cut short"))
        #expect(reports.values.contains { $0.node.hasPrefix("MovieInput#") && "\($0.error)".contains("frame \(frame)") })
        #expect(movie.statistics.damaged == reports.count)
    }

    @Test("Options that select nothing are refused")
    func invalidOptions() throws {
        #expect(throws: ELImageError.self) { try MovieInput(path: MovieFixtures.bunny, options: .init(frameRange: 5..<5)) }
        #expect(throws: ELImageError.self) { try MovieInput(path: MovieFixtures.bunny, options: .init(frameRange: -1..<5)) }
        #expect(throws: ELImageError.self) {
            try MovieInput(path: MovieFixtures.bunny, options: .init(start: MediaTime(value: 6, timescale: 1)))
        }
    }
}
