import ELImage
import Foundation

/// FFmpeg oracles for the still-image and siting tests: raw decodes and PSNR.
package enum StillsReference {
    /// FFmpeg's decode of `path` as raw `pixelFormat` bytes (e.g. "rgba", "rgb48le", "gray").
    package static func decode(_ path: String, pixelFormat: String) throws -> [UInt8] {
        [UInt8](try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-frames:v", "1",
                                       "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"]))
    }

    /// FFmpeg's 16-bit decode of `path` as RGB samples (rgb48le), three per pixel.
    package static func decode16(_ path: String) throws -> [UInt16] {
        let bytes = try decode(path, pixelFormat: "rgb48le")
        return stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
    }

    /// The lowest per-frame PSNR of each plane (Y, U, V) of `distorted` against `reference`, by
    /// FFmpeg's psnr filter; `.infinity` for identical planes.
    package static func planePSNR(_ distorted: String, against reference: String) throws -> [Double] {
        let output = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", distorted, "-i", reference,
                                            "-lavfi", "psnr=stats_file=-", "-f", "null", "-"])
        var lowest: [Double] = [.infinity, .infinity, .infinity]
        for line in String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline) {
            for field in line.split(separator: " ") {
                let parts = field.split(separator: ":")
                guard parts.count == 2, let plane = ["psnr_y", "psnr_u", "psnr_v"].firstIndex(of: String(parts[0])) else {
                    continue
                }
                let value = parts[1] == "inf" ? Double.infinity : (Double(parts[1]) ?? -1)
                lowest[plane] = min(lowest[plane], value)
            }
        }
        return lowest
    }

    /// PSNR of 8-bit samples `a` against `b` (same length), in dB; `.infinity` when equal.
    package static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var sum = 0.0
        for index in a.indices {
            let difference = Double(a[index]) - Double(b[index])
            sum += difference * difference
        }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / Double(a.count)))
    }

    /// The largest difference between `a` and `b`, sample for sample.
    package static func maximumError(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// Every `step`-th byte of `bytes` from `start` (one channel of interleaved pixels).
    package static func channel(_ bytes: [UInt8], _ start: Int, of step: Int) -> [UInt8] {
        stride(from: start, to: bytes.count, by: step).map { bytes[$0] }
    }

    /// The R, G and B bytes of RGBA `bytes`.
    package static func rgb(ofRGBA bytes: [UInt8]) -> [UInt8] {
        stride(from: 0, to: bytes.count, by: 4).flatMap { bytes[$0..<($0 + 3)] }
    }
}
