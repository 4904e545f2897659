import ELImage
import ELImageDetection
import Foundation
import Testing

/// A detector that finds nothing, after `delay` seconds, and records the images it saw.
final class RecordingDetector: MetadataDetector {
    let name = "recording"
    let preferredAnalysisSize = (width: 64, height: 64)
    let delay: Double
    let seen = Collector<(frame: Int, time: MediaTime, width: Int, height: Int)>()

    init(delay: Double = 0) { self.delay = delay }

    func detect(in image: LumaImage) throws -> [Detection] {
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        seen.append((image.frame, image.time, image.width, image.height))
        return []
    }
}

/// The detector sink itself: timestamps, sampling, dropping, closing; and the overlay.
@Suite("Detector output", .closesContexts)
struct DetectorOutputTests {
    /// Frames of a flat colour with the given timestamps, through RawDataInput.
    func feed(_ input: RawDataInput, times: [MediaTime], width: Int = 160, height: Int = 90,
              on context: RenderContext) async throws {
        let pixels = [UInt8](repeating: 200, count: width * height * 4)
        for time in times {
            try await input.process(pixels, width: width, height: height, format: .rgba, timestamp: time, on: context)
        }
    }

    @Test("Metadata carries each frame's number and exact timestamp, through the handler and the stream")
    func timestamps() async throws {
        let context = try TestContexts.make()
        let detector = RecordingDetector()
        let handled = Collector<Metadata>()
        let input = RawDataInput()
        let output = try DetectorOutput(detector: detector, settings: .init(waitsForDetector: true)) { handled.append($0) }
        input --> output
        let times = (0..<12).map { MediaTime(value: Int64(1001 * $0 + 7), timescale: 30000) }
        try await feed(input, times: times, on: context)
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
    }

    @Test("Told not to wait, a busy detector drops images (counted): the newest waits; the main path loses no frame")
    func busyDetectorDrops() async throws {
        let context = try TestContexts.make()
        let detector = GatedDetector()  // busy with frame 0 until opened
        let input = RawDataInput()
        let output = try DetectorOutput(detector: detector, settings: .init(waitsForDetector: false))
        let (mainPath, frames) = imageCollector()
        input --> output
        input --> mainPath
        let times = (0..<40).map { MediaTime(frame: Int64($0), framesPerSecond: 25) }
        try await feed(input, times: Array(times.prefix(1)), on: context)
        #expect(await waitUntil { detector.started.values == [0] })
        try await feed(input, times: Array(times.dropFirst()), on: context)  // never waits for the detector
        #expect(frames.count == 40)
        detector.open()
        await output.close()
        let statistics = output.statistics
        #expect(frames.values.map(\.timestamp) == times)
        // Frame 0 was being analysed; 1...38 each gave way to the next; 39 waited and was analysed.
        #expect(statistics == .init(framesIn: 40, sampled: 40, analysed: 2, dropped: 38))
        #expect(detector.started.values == [0, 39])
    }

    @Test("Every Nth frame, and at most a rate in frame time")
    func sampling() async throws {
        let context = try TestContexts.make()
        let everyThird = RecordingDetector(), fivePerSecond = RecordingDetector()
        let input = RawDataInput()
        let third = try DetectorOutput(detector: everyThird, settings: .init(interval: 3, waitsForDetector: true))
        let rated = try DetectorOutput(detector: fivePerSecond, settings: .init(maximumRate: 5, waitsForDetector: true))
        input --> third
        input --> rated
        try await feed(input, times: (0..<25).map { MediaTime(frame: Int64($0), framesPerSecond: 25) }, on: context)
        await third.close()
        await rated.close()
        #expect(everyThird.seen.values.map(\.frame) == [0, 3, 6, 9, 12, 15, 18, 21, 24])
        #expect(fivePerSecond.seen.values.map(\.frame) == [0, 5, 10, 15, 20])
        #expect(third.statistics.framesIn == 25 && third.statistics.sampled == 9)
    }

    @Test("Closing the context closes the detector: its worker is joined")
    func contextClosesIt() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let output = try DetectorOutput(detector: RecordingDetector(), settings: .init(waitsForDetector: true))
        input --> output
        try await feed(input, times: [.zero], on: context)
        #expect(context.runningThreadNames.contains("ELImage.detect"))
        await context.close()
        #expect(context.runningThreadNames.isEmpty)
        #expect(output.statistics.analysed == 1)
    }

    @Test("Invalid settings are refused with the reason")
    func invalidSettings() {
        #expect(throws: ELImageError.self) { try DetectorOutput(detector: RecordingDetector(), settings: .init(interval: 0)) }
        #expect(throws: ELImageError.self) { try DetectorOutput(detector: RecordingDetector(), settings: .init(maximumRate: 0)) }
        #expect(throws: ELImageError.self) {
            try DetectorOutput(detector: RecordingDetector(), settings: .init(analysisSize: (4, 4)))
        }
    }

    @Test("The overlay draws a face box's outline in green and leaves the rest of the frame alone")
    func overlay() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let overlay = MetadataOverlay(lineWidth: 2)
        let (sink, images) = imageCollector()
        input --> overlay --> sink
        let box = CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        overlay.show(Metadata(detector: "faces", frame: 0, time: .zero, frameWidth: 200, frameHeight: 100, detections: [
            .face(Face(trackingID: 1, bounds: box, pixelBounds: box.scaled(200, 100), confidence: 1,
                       rollDegrees: nil, yawDegrees: nil)),
        ]))
        try await feed(input, times: [.zero], width: 200, height: 100, on: context)
        let image = try #require(images.values.first)
        #expect(image[50, 50] == SIMD4(40, 230, 60, 255))     // top-left corner of the box
        #expect(image[100, 75] == SIMD4(40, 230, 60, 255))    // bottom edge
        #expect(image[100, 50] == SIMD4(200, 200, 200, 200))  // inside: untouched
        #expect(image[10, 10] == SIMD4(200, 200, 200, 200))   // outside: untouched
    }
}
