import ELImage
import ELImageDetection
import ELImageTestSupport
import Foundation
import Testing

/// A detector that fails on one frame (by the node's numbering) and finds nothing on the others.
final class FailingDetector: MetadataDetector {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "the model refused the image" }
    }

    let name = "failing"
    let preferredAnalysisSize = (width: 32, height: 32)
    let failingFrame: Int
    let seen = Collector<Int>()

    init(failingFrame: Int) { self.failingFrame = failingFrame }

    func detect(in image: AnalysisImage) throws -> [Detection] {
        seen.append(image.frame)
        if image.frame == failingFrame { throw Refusal() }
        return []
    }
}

/// The detector sink on the `ReadbackSink` path: a failing detector, and a node released unclosed.
@Suite("Detector output failures", .closesContexts)
struct DetectorOutputFailureTests {
    func feed(_ input: RawDataInput, frames: Int, on context: RenderContext) async throws {
        let pixels = [UInt8](repeating: 90, count: 64 * 48 * 4)
        for index in 0..<frames {
            try await input.process(pixels, width: 64, height: 48, format: .rgba,
                                    timestamp: MediaTime(frame: Int64(index), framesPerSecond: 25), on: context)
        }
    }

    @Test("A failing detector is reported once, naming the node, detector and frame; frames go on, unanalysed")
    func failure() async throws {
        let context = try TestContexts.make()
        let failures = Collector<String>()
        context.setErrorHandler { failures.append($0.description) }
        let detector = FailingDetector(failingFrame: 4)
        let input = RawDataInput()
        let output = try DetectorOutput(detector: detector, settings: .init(interval: 2, waitsForDetector: true))
        let (mainPath, frames) = imageCollector()
        input --> output
        input --> mainPath
        try await feed(input, frames: 10, on: context)
        // The failure ended the run, and so the results: iterating them ends without close().
        let streamed = await elementsUntilEnd(of: output.metadata)
        #expect(streamed?.map(\.frame) == [0, 2], "the metadata stream did not end at the failure")
        await output.close()
        await output.close()  // idempotent
        #expect(frames.count == 10)
        #expect(detector.seen.values == [0, 2, 4])
        #expect(failures.values.count == 1)
        let message = try #require(failures.values.first)
        #expect(message.contains("DetectorOutput") && message.contains("DetectorOutput(failing), frame 4")
            && message.contains("the model refused the image"), "\(message)")
        let statistics = output.statistics
        #expect(statistics.framesIn == 10 && statistics.sampled == 3 && statistics.analysed == 2
            && statistics.dropped == 1, "\(statistics)")
    }

    @Test("A node released without close() analyses what it took and finishes its metadata")
    func releasedUnclosed() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        var output: DetectorOutput? = try DetectorOutput(detector: RecordingDetector(),
                                                         settings: .init(waitsForDetector: true))
        let metadata = try #require(output?.metadata)
        if let output { input --> output }
        try await feed(input, frames: 3, on: context)
        input.removeAllTargets()
        output = nil
        var streamed: [Int] = []
        for await found in metadata { streamed.append(found.frame) }
        #expect(streamed == [0, 1, 2])
        await context.close()
        #expect(context.runningThreadNames.isEmpty)
    }
}
