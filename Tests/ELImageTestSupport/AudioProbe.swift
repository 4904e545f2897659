import Foundation
import Testing

/// ffprobe/ffmpeg oracles for the sound tests: stream facts, decoded samples, and where a flash
/// and a click are in a file.
package enum AudioProbe {
    /// One stream's codec, start time and duration (seconds), as ffprobe reports them.
    package struct Stream {
        package var codec: String
        package var start: Double
        package var duration: Double
    }

    /// The file's streams of `kind` ("a" or "v").
    package static func streams(_ path: String, kind: String) throws -> [Stream] {
        let text = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", kind, "-show_entries",
                                                            "stream=codec_name,start_time,duration", "-of", "csv=p=0", path]),
                          as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count >= 3 else { return nil }
            return Stream(codec: fields[0], start: Double(fields[1]) ?? .nan, duration: Double(fields[2]) ?? .nan)
        }
    }

    /// The first audio track decoded by ffmpeg to 32-bit float samples, interleaved (`channels`:
    /// nil keeps the file's, 1 mixes down).
    package static func samples(_ path: String, channels: Int? = nil) throws -> [Float] {
        let data = try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0"]
                                         + (channels.map { ["-ac", "\($0)"] } ?? []) + ["-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The presentation time of the first frame brighter than mid-gray (a white flash).
    package static func flashTime(_ path: String) throws -> Double? {
        let times = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                             "frame=pts_time", "-of", "csv=p=0", path]), as: UTF8.self)
            .split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        let luma = try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                          "-vf", "scale=8:8", "-pix_fmt", "gray", "-f", "rawvideo", "-"])
        let frames = luma.count / 64
        for index in 0..<min(frames, times.count) {
            let mean = luma[(index * 64)..<(index * 64 + 64)].reduce(0) { $0 + Int($1) } / 64
            if mean > 128 { return times[index] }
        }
        return nil
    }

    /// The time of the first loud sample (a click): the audio stream's start plus its index.
    package static func clickTime(_ path: String, rate: Double = 48_000) throws -> Double? {
        guard let start = try streams(path, kind: "a").first?.start else { return nil }
        let samples = try samples(path, channels: 1)
        return samples.firstIndex { abs($0) > 0.3 }.map { start + Double($0) / rate }
    }

    /// A 3 s (or `seconds`) 160x120 clip at 25 fps made by ffmpeg (H.264 + AAC or `audioCodec`, 48 kHz mono):
    /// black, with one white frame at `flashFrame` and a 4 ms click at the same time.
    package static func makeSyncClip(_ path: String, flashFrame: Int = 25, audioCodec: String = "aac", seconds: Int = 3) throws {
        let time = Double(flashFrame) / 25
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=160x120:r=25:d=\(seconds)",
                               "-f", "lavfi", "-i", "aevalsrc='0.9*between(t\\,\(time)\\,\(time + 0.004))':s=48000:d=\(seconds)",
                               "-vf", "drawbox=c=white:t=fill:enable='eq(n\\,\(flashFrame))'",
                               "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", audioCodec, "-shortest", path])
    }
}

extension AudioProbe {
    /// The frequency (Hz) with the most energy in `samples`: the power spectrum of the first
    /// second (Goertzel's recurrence, one frequency at a time) from 50 Hz to 2 kHz in 5 Hz steps,
    /// refined in 0.1 Hz steps around the peak.
    package static func dominantFrequency(_ samples: [Float], rate: Double) -> Double? {
        let window = Array(samples.prefix(Int(rate)))
        guard window.count > Int(rate) / 2 else { return nil }
        func power(_ frequency: Double) -> Double {
            let coefficient = 2 * cos(2 * Double.pi * frequency / rate)
            var previous = 0.0, beforePrevious = 0.0
            for value in window {
                let current = Double(value) + coefficient * previous - beforePrevious
                beforePrevious = previous
                previous = current
            }
            return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        }
        var best = 50.0, bestPower = -1.0
        for frequency in stride(from: 50.0, through: 2000, by: 5) {
            let value = power(frequency)
            if value > bestPower { (best, bestPower) = (frequency, value) }
        }
        for frequency in stride(from: best - 5, through: best + 5, by: 0.1) {
            let value = power(frequency)
            if value > bestPower { (best, bestPower) = (frequency, value) }
        }
        return best
    }
}

extension AudioProbe {
    /// Where each packet of the first stream of `kind` ends (pts + duration, seconds).
    package static func packetEnds(_ path: String, kind: String) throws -> [Double] {
        String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "\(kind):0", "-show_entries",
                                                 "packet=pts_time,duration_time", "-of", "csv=p=0", path]), as: UTF8.self)
            .split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",").compactMap { Double($0) }
                return fields.count == 2 ? fields[0] + fields[1] : fields.first
            }
    }
}
