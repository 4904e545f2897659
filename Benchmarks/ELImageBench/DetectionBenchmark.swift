import CGLES
import ELImage
import ELImageDetection
import ELImageMedia
import Foundation

/// The main path's cost per frame with and without a detector branch: a 1280x720 frame (the
/// astronaut portrait and a QR code on grey) through Passthrough → Beauty, alone, and with face
/// and code detectors (`DetectorOutput`, newest image wins) beside it, on every frame and on every
/// 10th. Each timed frame is the
/// entry's `receive` plus `glFinish`, on the render thread; the detectors' workers run on their
/// own threads meanwhile, competing for the same cores. Then the face detectors side by side, the
/// render thread waiting for each analysis (as for a file's frames), so a frame's time holds its
/// GPU shrink, readback and detection: the Haar cascades (luma) against the landmark networks
/// (RGBA), Beauty beside the landmarks with FaceReshape after it, Beauty steered by them (its
/// fold passes), and Beauty with fixed faces and no detector (the fold passes' own cost). Blocks of 20 frames
/// alternate after 20 warm-up frames each.
struct DetectionBenchmark {
    let width = 1280
    let height = 720
    let frames: Int
    private let mediaFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/Media").path

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let frame = try uploadedScene(on: context)
        let drain = DetectionDrain()
        var pipelines: [(name: String, entry: Passthrough, detectors: [DetectorOutput], times: [Double])] = []
        for interval in [0, 1, 10] {
            let entry = Passthrough()
            entry --> Beauty() --> drain
            var detectors: [DetectorOutput] = []
            if interval > 0 {
                // Newest image wins, as for a camera (frames pushed by hand would wait by default).
                let settings = DetectorOutput.Settings(interval: interval, waitsForDetector: false)
                detectors = [try DetectorOutput(detector: try FaceDetector(), settings: settings),
                             try DetectorOutput(detector: CodeDetector(), settings: settings)]
                for detector in detectors { entry --> detector }
            }
            let name = interval == 0 ? "beauty, no detector"
                : "beauty + faces,codes branch, every \(interval == 1 ? "" : "\(interval)th ")frame"
            pipelines.append((name, entry, detectors, []))
        }
        // The face detectors compared, each analysis waited for.
        let waiting = DetectorOutput.Settings(waitsForDetector: true)
        for (name, detector) in [("beauty + Haar faces, waited for", try FaceDetector() as any MetadataDetector),
                                 ("beauty + landmark faces, waited for", try FaceLandmarkDetector())] {
            let entry = Passthrough()
            entry --> Beauty() --> drain
            let output = try DetectorOutput(detector: detector, settings: waiting)
            entry --> output
            pipelines.append((name, entry, [output], []))
        }
        let reshape = FaceReshape()
        let steered = Passthrough()
        let landmarks = try DetectorOutput(detector: try FaceLandmarkDetector(), settings: waiting) { found in
            reshape.faces = found.facePoints
        }
        steered --> landmarks
        steered --> Beauty() --> reshape --> drain
        pipelines.append(("beauty + reshape steered by landmarks, waited for", steered, [landmarks], []))
        let foldBeauty = Beauty()
        let folded = Passthrough()
        let foldLandmarks = try DetectorOutput(detector: try FaceLandmarkDetector(), settings: waiting) { found in
            foldBeauty.faces = found.facePoints
        }
        folded --> foldLandmarks
        folded --> foldBeauty --> drain
        pipelines.append(("beauty steered by landmarks (folds), waited for", folded, [foldLandmarks], []))
        // The face path's own GPU cost: the portrait's marked points (FaceLandmarkTests), no detector.
        let fixedBeauty = Beauty()
        fixedBeauty.faces = [facePoints([(202.5, 101.75), (247.25, 102.5), (223.75, 126.25), (203.75, 141.25), (244.5, 142)])]
        let fixed = Passthrough()
        fixed --> fixedBeauty --> drain
        pipelines.append(("beauty with fixed faces (folds), no detector", fixed, [], []))
        let warmUp = 20
        while pipelines[0].times.count < frames + warmUp {
            for index in pipelines.indices {
                let entry = pipelines[index].entry
                for _ in 0..<20 {
                    pipelines[index].times.append(try milliseconds {
                        try context.performAndWait { context in
                            try entry.receive(frame, at: 0, in: context)
                            glFinish()
                        }
                    })
                }
            }
        }
        let detectors = pipelines.flatMap(\.detectors)
        try blocking { for detector in detectors { await detector.close() } }
        let size = "\(width)x\(height)"
        let baseline = LatencyStatistics(milliseconds: Array(pipelines[0].times.dropFirst(warmUp)))
        return pipelines.map { pipeline in
            let latency = LatencyStatistics(milliseconds: Array(pipeline.times.dropFirst(warmUp)))
            var name = pipeline.name
            if let faces = pipeline.detectors.first {
                name += String(format: " (%.2fx; faces %d analysed, %d dropped)", latency.p50 / baseline.p50,
                               faces.statistics.analysed, faces.statistics.dropped)
            }
            return PipelineResult(name: name, size: size, latency: latency, ratioToBare: nil)
        }
    }

    /// Points in the portrait's pixels as `FacePoints` of the scene (the portrait sits at 100, 100).
    private func facePoints(_ points: [(Float, Float)]) -> FacePoints {
        let unit = points.map { SIMD2(($0.0 + 100) / Float(width), ($0.1 + 100) / Float(height)) }
        return FacePoints(leftEye: unit[0], rightEye: unit[1], nose: unit[2], mouthLeft: unit[3], mouthRight: unit[4])
    }

    /// The portrait and the QR code on a grey 1280x720 frame, uploaded.
    private func uploadedScene(on context: RenderContext) throws -> TextureFrame {
        let portrait = try PNGFile.read(mediaFolder + "/astronaut.png")
        let code = try PNGFile.read(mediaFolder + "/qrcode.png")
        var pixels = [UInt8](repeating: 128, count: width * height * 4)
        for (image, left, top) in [(portrait, 100, 100), (code, 800, 260)] {
            for row in 0..<image.height {
                for column in 0..<image.width {
                    let from = (row * image.width + column) * 4, to = ((top + row) * width + left + column) * 4
                    for channel in 0..<4 { pixels[to + channel] = image.pixels[from + channel] }
                }
            }
        }
        let grabbed = Box<TextureFrame?>(nil)
        let buffer = try PixelBuffer(format: .rgba, width: width, height: height, data: pixels, colorSpace: .srgb)
        try context.performAndWait { context in grabbed.value = try context.makeFrame(from: buffer) }
        guard let frame = grabbed.value else { throw DetectionBenchmarkFailure(description: "the upload produced no frame") }
        return frame
    }
}

/// Drops every frame (the GPU work is waited for by the caller's glFinish).
private final class DetectionDrain: ImageInput, Sendable {
    let inputSlots = InputSlots()
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {}
}

private struct DetectionBenchmarkFailure: Error, CustomStringConvertible { let description: String }
