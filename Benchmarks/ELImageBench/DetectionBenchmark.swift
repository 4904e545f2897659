import CGLES
import ELImage
import ELImageDetection
import ELImageMedia
import Foundation

/// The main path's cost per frame with and without a detector branch: a 1280x720 frame (the
/// astronaut portrait and a QR code on grey) through Passthrough → Beauty, alone, and with face
/// and code detectors (`DetectorOutput`, newest image wins) beside it. Each timed frame is the
/// entry's `receive` plus `glFinish`, on the render thread; the detectors' workers run on their
/// own threads meanwhile, competing for the same cores. Blocks of 20 frames alternate after 20
/// warm-up frames each.
struct DetectionBenchmark {
    let width = 1280
    let height = 720
    let frames: Int
    private let mediaFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/Media").path

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let frame = try uploadedScene(on: context)
        let drain = DetectionDrain()
        let plain = Passthrough()
        plain --> Beauty() --> drain
        let detected = Passthrough()
        detected --> Beauty() --> drain
        let faces = try DetectorOutput(detector: try FaceDetector())
        let codes = try DetectorOutput(detector: CodeDetector())
        detected --> faces
        detected --> codes
        var plainTimes: [Double] = [], detectedTimes: [Double] = []
        let warmUp = 20
        while plainTimes.count < frames + warmUp {
            for (entry, index) in [(plain, 0), (detected, 1)] {
                for _ in 0..<20 {
                    let time = try milliseconds {
                        try context.performAndWait { context in
                            try entry.receive(frame, at: 0, in: context)
                            glFinish()
                        }
                    }
                    if index == 0 { plainTimes.append(time) } else { detectedTimes.append(time) }
                }
            }
        }
        try blocking {
            await faces.close()
            await codes.close()
        }
        let size = "\(width)x\(height)"
        let without = LatencyStatistics(milliseconds: Array(plainTimes.dropFirst(warmUp)))
        let with = LatencyStatistics(milliseconds: Array(detectedTimes.dropFirst(warmUp)))
        let analysed = "faces \(faces.statistics.analysed) analysed/\(faces.statistics.dropped) dropped, "
            + "codes \(codes.statistics.analysed)/\(codes.statistics.dropped)"
        return [
            PipelineResult(name: "beauty, no detector", size: size, latency: without, ratioToBare: nil),
            PipelineResult(name: String(format: "beauty + faces,codes branch (%.2fx; %@)", with.p50 / without.p50, analysed),
                           size: size, latency: with, ratioToBare: nil),
        ]
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
