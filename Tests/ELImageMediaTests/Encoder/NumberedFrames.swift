import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation

/// Frames that carry their own number (two flat halves whose grey levels encode it), fed at
/// 25 fps and read back from the decoded files, so a test says which frames a file holds without
/// trusting the encoder's counts; and what ffprobe says of a file's video packets.
enum NumberedFrames {
    /// Grey levels 12 apart: a decoded half is read back to the nearest level.
    static let levels = 15

    /// Frame `number` of a numbered clip: the left half's grey level is `number / 15`, the right
    /// half's `number % 15`.
    static func frame(_ number: Int, width: Int = 128, height: Int = 64) -> RGBAImage {
        let left = UInt8(40 + (number / levels) * 12), right = UInt8(40 + (number % levels) * 12)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let value = x < width / 2 ? left : right
                let offset = (y * width + x) * 4
                (pixels[offset], pixels[offset + 1], pixels[offset + 2]) = (value, value, value)
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// The frame numbers ffmpeg decodes from `files` played one after the other (its concat
    /// demuxer), read from each frame's two halves.
    static func decodedNumbers(of files: [String], in folder: TemporaryFolder, width: Int = 128, height: Int = 64) throws -> [Int] {
        let list = folder.path("list.txt")
        try files.map { "file '\($0)'\n" }.joined().write(toFile: list, atomically: true, encoding: .utf8)
        let data = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "concat", "-safe", "0", "-i", list,
                                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let size = width * height * 3
        return (0..<(data.count / size)).map { frame in
            func level(_ x: Int) -> Int {
                // Red in the middle of the half, away from the edge between them (ffmpeg converts
                // back to RGB with the range and matrix the file is tagged with).
                let grey = Double(data[frame * size + (height / 2 * width + x) * 3])
                return Int(((grey - 40) / 12).rounded())
            }
            return level(width / 4) * levels + level(3 * width / 4)
        }
    }

    /// Each video packet's (pts seconds, keyframe) in `path`, in decoding order.
    static func videoPackets(_ path: String) throws -> [(pts: Double, keyframe: Bool)] {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                             "packet=pts_time,flags", "-of", "csv=p=0", path])
        return String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let pts = Double(fields[0]) else { return nil }
            return (pts, fields[1].contains("K"))
        }
    }

    /// The size of each video packet in `path`.
    static func videoPacketSizes(_ path: String) throws -> [Int] {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                                             "-of", "csv=p=0", path])
        return String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap {
            Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")))
        }
    }

    /// Frames `range` (each its number), stamped at 25 fps, into `input`.
    static func feed(_ range: Range<Int>, into input: RawDataInput, on context: RenderContext) async throws {
        try await EncoderFixtures.feed(range.map { frame($0) }, into: input, on: context, timestamps: times(range))
    }

    /// The 25 fps timestamps of frames `range`.
    static func times(_ range: Range<Int>) -> [MediaTime] { range.map { MediaTime(frame: Int64($0), framesPerSecond: 25) } }
}
