import ELImage
import ELImageCamera
import ELImageDetection
import ELImageMedia
import ELImageTesting
import ELImageTestSupport
import Foundation
import Testing

/// A detector that finds nothing and holds each analysis until the test opens its gate.
final class GatedDetector: MetadataDetector {
    let name = "gated"
    let preferredAnalysisSize = (width: 64, height: 64)
    let started = Collector<Int>()
    private let gate = DispatchSemaphore(value: 0)

    func detect(in image: AnalysisImage) throws -> [Detection] {
        started.append(image.frame)
        gate.wait()
        gate.signal()  // once open, it stays open
        return []
    }

    func open() { gate.signal() }
}

/// When results arrive by default (`waitsForDetector` nil): a file's every sampled frame is
/// analysed and its result is in before the source's run returns, the stream of results ends
/// with the source's; a camera is never made to wait.
@Suite("Detector output: results as they are found", .closesContexts)
struct DetectorDeliveryTests {
    let clip = Repository.path("Examples/Media/bigbuckbunny.mp4")

    @Test("A movie into a default DetectorOutput: all 20 frames analysed, in order, before run(on:) returns; metadata ends with the stream")
    func movieWaitsForEachResult() async throws {
        let context = try TestContexts.make()
        let detector = RecordingDetector(delay: 0.02)  // slower than the decoder
        let handled = Collector<Metadata>()
        let passedOn = Collector<Int>()  // how many frames had gone past the detector at each result
        let movie = try MovieInput(path: clip, options: .init(frameRange: 0..<20))
        let mainPath = FrameCollector()
        let faces = try DetectorOutput(detector: detector) { found in
            passedOn.append(mainPath.count)
            handled.append(found)
        }
        movie --> faces
        movie --> mainPath  // after the detector: each frame comes here once its result is in
        try await movie.run(on: context)
        // Before any close(): every result went to the handler as the frames went through, each
        // before its frame went on.
        #expect(handled.values.map(\.frame) == Array(0..<20))
        #expect(passedOn.values == Array(0..<20), "frames went on before their results")
        #expect(faces.statistics == .init(framesIn: 20, sampled: 20, analysed: 20, dropped: 0))
        // The end of stream finished the sequence: iterating it ends without close().
        let finished = await elementsUntilEnd(of: faces.metadata)?.map(\.frame)
        #expect(finished == Array(0..<20), "the metadata stream did not end at the movie's end of stream")
        await faces.close()
    }

    @Test("A movie played in real time into a default DetectorOutput: its frames go on while the detector is busy")
    func realTimeMovieNeverWaits() async throws {
        let context = try TestContexts.make()
        let detector = GatedDetector()
        let movie = try MovieInput(path: clip, options: .init(pacing: .realTime, frameRange: 0..<10))
        let faces = try DetectorOutput(detector: detector)
        let mainPath = FrameCollector()
        movie --> faces          // first: a waiting detector would hold every frame here
        movie --> mainPath
        async let run: Void = movie.run(on: context)
        // The detector holds its first image until the end; the clip still plays through to its end
        // (a frame late on a loaded machine may be dropped by the real-time schedule).
        // Generous: under a loaded parallel run the movie's run may start a minute late.
        #expect(await mainPath.waitForEndOfStream(timeout: .seconds(300)), "the movie waited for the busy detector")
        #expect(mainPath.count >= 1 && detector.started.count == 1)
        detector.open()
        try await run
        await faces.close()
        #expect(detector.started.values.first == 0)
        #expect(faces.statistics.analysed + faces.statistics.dropped == faces.statistics.sampled, "\(faces.statistics)")
    }

    /// A 64x48 YUYV camera whose frames come when the test emits them.
    static func manualCamera() -> (EmulatedVideoDevice, Camera) {
        let device = EmulatedVideoDevice(path: "/dev/video0", formats: [
            EmulatedVideoDevice.Format(fourCC: .yuyv, sizes: [
                EmulatedVideoDevice.Format.Size(width: 64, height: 48, framesPerSecond: [30]),
            ]),
        ], pacing: .manual)
        let camera = Camera(device: "/dev/video0", settings: CaptureSettings(width: 64, height: 48, framesPerSecond: 30, stallTimeout: .seconds(3600)),
                            io: EmulatedDeviceIO([device]))
        return (device, camera)
    }

    @Test("A camera into a default DetectorOutput: frames go on while the detector is busy; newer images replace the waiting one")
    func cameraNeverWaits() async throws {
        let (device, camera) = Self.manualCamera()
        let context = try TestContexts.make()
        let detector = GatedDetector()
        let faces = try DetectorOutput(detector: detector)
        let mainPath = FrameCollector()
        camera --> faces          // first: a waiting detector would hold every frame here
        camera --> mainPath
        try camera.start(on: context)
        for frame in 0..<4 {
            device.emitFrames()
            #expect(await waitUntil { mainPath.count == frame + 1 }, "frame \(frame) did not get past the busy detector")
            if frame == 0 {
                // The detector's worker takes frame 0 before the next frame comes, or frame 1
                // would rightly replace it in the mailbox.
                #expect(await waitUntil { detector.started.count == 1 }, "the detector never took frame 0")
            }
        }
        #expect(detector.started.values == [0])  // the first image is still being analysed
        // Frames 2 and 3 replace the one waiting while the detector is still busy (on a software
        // renderer the render thread hands each over once the renderer has drawn it).
        #expect(await waitUntil { faces.statistics.dropped >= 2 }, "\(faces.statistics)")
        detector.open()
        await camera.finish()
        #expect(await waitUntil { mainPath.endOfStreamCount == 1 })
        await faces.close()
        let statistics = faces.statistics
        #expect(statistics.framesIn == 4)
        #expect(statistics.dropped >= 2, "\(statistics)")  // frames 1...3: one waited, the others were replaced
        #expect(statistics.analysed + statistics.dropped == 4, "\(statistics)")
    }

    @Test("A frame is named by its source's own number: frames the camera replaced before the graph took them are counted, through a filter and the detector")
    func framesNamedBySourceNumber() async throws {
        let (device, camera) = Self.manualCamera()
        let context = try TestContexts.make()
        let detector = RecordingDetector()
        let faces = try DetectorOutput(detector: detector)
        let mainPath = FrameCollector()
        camera --> Brightness(0.1) --> faces
        camera --> mainPath
        try camera.start(on: context)
        // Three frames at once: the capture keeps the newest (number 2) and drops the two before it.
        device.emitFrames(3)
        #expect(await waitUntil { mainPath.count == 1 && detector.seen.count == 1 }, "the first picture did not arrive")
        device.emitFrames()
        #expect(await waitUntil { mainPath.count == 2 && detector.seen.count == 2 }, "the second picture did not arrive")
        await camera.finish()
        await faces.close()
        let statistics = camera.statistics
        #expect(statistics.produced == 4 && statistics.delivered == 2, "\(statistics)")
        #expect(mainPath.buffers.map(\.sequenceNumber) == [2, 3])
        #expect(detector.seen.values.map(\.frame) == [2, 3], "the detector named the frames by its own count")
        #expect(faces.statistics.framesIn == 2)
    }
}
