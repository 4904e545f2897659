// FFmpeg's encoders behind `elimage run -o .mkv/.webm/.gif/.webp` next to FFmpeg's own encode of
// the same clip with the same settings, both end to end, measured in the same run, alternating.

import ELImageMedia
import Foundation

/// Per-frame cost of `elimage run clip.y4m -o out.EXT` (decode, upload, pack on the GPU, read back,
/// encode, mux) next to `ffmpeg -i clip.y4m -c:v ENCODER <the same options> out.EXT` (decode,
/// encode, mux), each as (t(N frames) − t(M frames)) / (N − M) so that start-up cancels, once per
/// repeat. The ratio says what ELImage's path costs over the encoder's own. The first row is the
/// MP4 of `VideoEncoder` (libx264 itself, veryfast, CRF 23, fragmented), for comparison.
struct EncoderComparison {
    /// The codecs measured and the container each is written in (nil: MP4 through `VideoEncoder`).
    static let outputs: [(codec: VideoCodec, container: VideoCodec.Container?, fileExtension: String)] = [
        (.h264, nil, "mp4"), (.h264, .matroska, "mkv"), (.vp9, .webm, "webm"), (.av1, .webm, "webm"), (.gif, .gif, "gif"),
        (.webp, .webp, "webp"),
    ]

    let elimage: String
    let clip: SourceClip
    /// Frames of the long and of the short runs.
    let frames: Int, shortFrames: Int
    let repeats: Int
    let folder: URL

    /// Two rows per codec (ELImage's, with its ratio to FFmpeg's; FFmpeg's), and the codecs this
    /// FFmpeg lacks.
    func run() throws -> (results: [PipelineResult], missing: [String]) {
        guard FileManager.default.isExecutableFile(atPath: elimage) else {
            throw BenchmarkFailure("no elimage binary at \(elimage): build it first (swift build -c release --product elimage) or pass --elimage PATH")
        }
        guard frames > shortFrames, shortFrames > 0 else {
            throw BenchmarkFailure("the encoder comparison needs more frames (\(frames)) than its short run (\(shortFrames))")
        }
        var results: [PipelineResult] = [], missing: [String] = []
        for (codec, container, fileExtension) in Self.outputs {
            guard let encoder = codec.encoderName else {
                missing.append(codec.rawValue)
                continue
            }
            let ours = folder.appendingPathComponent("encoder-elimage.\(fileExtension)").path
            let theirs = folder.appendingPathComponent("encoder-ffmpeg.\(fileExtension)").path
            let elimageArguments = ["run", clip.path, "-y", "-o", ours] + (codec == container?.defaultCodec ?? .h264 ? [] : ["--codec", codec.rawValue])
            let settings = container == nil
                ? ["-c:v", encoder, "-crf", "23", "-preset", "veryfast", "-movflags", "+frag_keyframe+empty_moov+default_base_moof"]
                : ["-c:v", encoder] + codec.encoderOptions(encoder: encoder, quality: codec.defaultQuality).flatMap { ["-\($0.0)", $0.1] }
                    + (codec == .gif ? ["-pix_fmt", "bgr8"] : [])
                    + (codec == .gif || codec == .webp ? ["-loop", "0"] : [])
            func ffmpeg(_ count: Int) throws -> Double {
                try? FileManager.default.removeItem(atPath: theirs)
                return try milliseconds {
                    try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", clip.path, "-frames:v", "\(count)"] + settings + [theirs])
                }
            }
            func elimageRun(_ count: Int) throws -> Double {
                try milliseconds { try MatrixBenchmark.runElimage(elimage, elimageArguments + ["--frames", "\(count)"], capturing: false) }
            }
            var ourEstimates: [Double] = [], theirEstimates: [Double] = []
            for _ in 0..<repeats {
                let (ourLong, theirLong) = (try elimageRun(frames), try ffmpeg(frames))
                let (ourShort, theirShort) = (try elimageRun(shortFrames), try ffmpeg(shortFrames))
                ourEstimates.append((ourLong - ourShort) / Double(frames - shortFrames))
                theirEstimates.append((theirLong - theirShort) / Double(frames - shortFrames))
            }
            try? FileManager.default.removeItem(atPath: ours)
            try? FileManager.default.removeItem(atPath: theirs)
            let (mine, reference) = (LatencyStatistics(milliseconds: ourEstimates), LatencyStatistics(milliseconds: theirEstimates))
            FileHandle.standardError.write(Data(String(format: "encoders %@ (.%@) %@: %.2f ms/frame, FFmpeg %.2f ms\n",
                                                       codec.rawValue, fileExtension, clip.sizeName, mine.p50, reference.p50).utf8))
            results.append(PipelineResult(name: "elimage run -o .\(fileExtension) (\(codec))", size: clip.sizeName, latency: mine,
                                          ratioToBare: mine.p50 / reference.p50,
                                          note: "ratio to FFmpeg's own encode; p50 of \(repeats) estimates over \(frames) − \(shortFrames) frames"))
            results.append(PipelineResult(name: "ffmpeg -c:v \(encoder), same settings", size: clip.sizeName, latency: reference,
                                          ratioToBare: nil, note: settings.dropFirst(2).joined(separator: " ")))
        }
        return (results, missing)
    }
}
