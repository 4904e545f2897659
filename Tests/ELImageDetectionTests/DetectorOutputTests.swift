import ELImage
import ELImageDetection
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// A detector that finds nothing and records the images it saw; with a `gate`, each detection
/// waits until the gate is open (a detector stuck for as long as the test wants).
final class RecordingDetector: MetadataDetector {
    let name = "recording"
    let preferredAnalysisSize = (width: 64, height: 64)
    let gate: Gate?
    /// Seconds each analysis takes (a detector slower than the source; it synchronises nothing).
    let delay: Double
    let seen = Collector<(frame: Int, time: MediaTime, width: Int, height: Int)>()

    init(gate: Gate? = nil, delay: Double = 0) {
        self.gate = gate
        self.delay = delay
    }

    func detect(in image: AnalysisImage) throws -> [Detection] {
        gate?.pass()
        if delay > 0 { usleep(UInt32(delay * 1_000_000)) }
        seen.append((image.frame, image.time, image.width, image.height))
        return []
    }
}

/// The detector sink itself: timestamps, sampling, dropping, closing; and the overlay.
@Suite("Detector output", .closesContexts)
struct DetectorOutputTests {
    /// Frames of a flat colour with the given timestamps.
    func frames(_ times: [MediaTime], width: Int = 160, height: Int = 90) -> [RGBAImage] {
        let pixels = [UInt8](repeating: 200, count: width * height * 4)
        return times.map { RGBAImage(width: width, height: height, pixels: pixels, timestamp: $0) }
    }

    @Test("Metadata carries each frame's number and exact timestamp, through the handler and the stream")
    func timestamps() async throws {
        let detector = RecordingDetector()
        let handled = Collector<Metadata>()
        let output = try DetectorOutput(detector: detector, settings: .init(waitsForDetector: true)) { handled.append($0) }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        let context = pipeline.context
        let times = (0..<12).map { MediaTime(value: Int64(1001 * $0 + 7), timescale: 30000) }
        try await pipeline.send(frames(times))
        await output.close()
        var streamed: [Metadata] = []
        for await metadata in output.metadata { streamed.append(metadata) }
        #expect(handled.values.map(\.time) == times)
        #expect(handled.values.map(\.time.value) == times.map(\.value))
        #expect(handled.values.map(\.frame) == Array(0..<12))
        #expect(streamed.map(\.time) == times)
        #expect(handled.values.allSatisfy { $0.frameWidth == 160 && $0.frameHeight == 90 && $0.detector == "recording" })
        // 160×90 shrunk to fit 64×64: 64×36.
        #expect(detector.seen.values.allSatisfy { $0.width == 64 && $0.height == 36 })
        #expect(output.statistics == .init(framesIn: 12, sampled: 12, analysed: 12, dropped: 0))
        #expect(!context.runningThreadNames.contains("ELImage.detect"))
        #expect(await pipeline.finish().isEmpty)
    }

    @Test("Told not to wait, a detector slower than the frames drops images (counted) and the main path loses no frame")
    func slowDetectorDrops() async throws {
        let gate = Gate()
        let detector = RecordingDetector(gate: gate)
        let output = try DetectorOutput(detector: detector, settings: .init(waitsForDetector: false))
        // The main path goes on to the pipeline's output; the detector is a side branch.
        let pipeline = try EmbeddedPipeline(context: TestContexts.make()) { input in
            input --> output
            return input
        }
        let times = (0..<40).map { MediaTime(frame: Int64($0), framesPerSecond: 25) }
        // The detector is stuck on frame 0 while the other 39 go by.
        try await pipeline.send(frames([times[0]]))
        #expect(await gate.waitUntilWaiting())
        try await pipeline.send(frames(Array(times.dropFirst())))
        gate.open()
        await output.close()
        let statistics = output.statistics
        #expect(pipeline.output.count == 40)
        #expect(pipeline.output.received.map(\.timestamp) == times)
        #expect(statistics.framesIn == 40 && statistics.sampled == 40)
        #expect(statistics.dropped >= 38, "\(statistics)")  // one image waits at most, the newest
        #expect(statistics.analysed + statistics.dropped == 40)
        let analysed = detector.seen.values.map(\.frame)
        #expect(analysed.count == statistics.analysed)
        #expect(analysed == analysed.sorted() && Set(analysed).count == analysed.count)
    }

    @Test("Every Nth frame, and at most a rate in frame time")
    func sampling() async throws {
        let everyThird = RecordingDetector(), fivePerSecond = RecordingDetector()
        let third = try DetectorOutput(detector: everyThird, settings: .init(interval: 3, waitsForDetector: true))
        let rated = try DetectorOutput(detector: fivePerSecond, settings: .init(maximumRate: 5, waitsForDetector: true))
        let pipeline = try EmbeddedPipeline(context: TestContexts.make()) { input in
            input --> third
            input --> rated
            return input
        }
        try await pipeline.send(frames((0..<25).map { MediaTime(frame: Int64($0), framesPerSecond: 25) }))
        await third.close()
        await rated.close()
        #expect(everyThird.seen.values.map(\.frame) == [0, 3, 6, 9, 12, 15, 18, 21, 24])
        #expect(fivePerSecond.seen.values.map(\.frame) == [0, 5, 10, 15, 20])
        #expect(third.statistics.framesIn == 25 && third.statistics.sampled == 9)
    }

    @Test("Closing the context closes the detector: its worker is joined")
    func contextClosesIt() async throws {
        let output = try DetectorOutput(detector: RecordingDetector(), settings: .init(waitsForDetector: true))
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
        let context = pipeline.context
        try await pipeline.send(frames([.zero]))
        #expect(context.runningThreadNames.contains("ELImage.detect"))
        await context.close()
        #expect(context.runningThreadNames.isEmpty)
        #expect(output.statistics.analysed == 1)
    }

    @Test("Invalid settings are refused with the reason")
    func invalidSettings() {
        #expect { try DetectorOutput(detector: RecordingDetector(), settings: .init(interval: 0)) } throws: {
            "\($0)".contains("detector interval 0") && "\($0)".contains("N >= 1")
        }
        #expect { try DetectorOutput(detector: RecordingDetector(), settings: .init(maximumRate: 0)) } throws: {
            "\($0)".contains("detector rate 0") && "\($0)".contains("positive number of analyses per second")
        }
        #expect { try DetectorOutput(detector: RecordingDetector(), settings: .init(analysisSize: (4, 4))) } throws: {
            "\($0)".contains("analysis size 4x4") && "\($0)".contains("at least 8x8")
        }
    }

    @Test("The overlay draws a face box's outline in green and leaves the rest of the frame alone")
    func overlay() async throws {
        let overlay = MetadataOverlay(lineWidth: 2)
        let pipeline = try EmbeddedPipeline(context: TestContexts.make()) { $0 --> overlay }
        let box = CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        overlay.show(Metadata(detector: "faces", frame: 0, time: .zero, frameWidth: 200, frameHeight: 100, detections: [
            .face(Face(trackingID: 1, bounds: box, pixelBounds: box.scaled(200, 100), confidence: 1,
                       rollDegrees: nil, yawDegrees: nil)),
        ]))
        let image = try await pipeline.render(try #require(frames([.zero], width: 200, height: 100).first))
        // The overlay keeps its boxes' texture (one pooled frame) for the frames to come.
        let leftovers = await pipeline.finish()
        #expect(leftovers.framesInUse <= 1 && leftovers.failures.isEmpty && leftovers.threadsAfterClose.isEmpty, "\(leftovers)")
        #expect(image[50, 50] == SIMD4(40, 230, 60, 255))     // top-left corner of the box
        #expect(image[100, 75] == SIMD4(40, 230, 60, 255))    // bottom edge
        #expect(image[100, 50] == SIMD4(200, 200, 200, 200))  // inside: untouched
        #expect(image[10, 10] == SIMD4(200, 200, 200, 200))   // outside: untouched
    }
}
