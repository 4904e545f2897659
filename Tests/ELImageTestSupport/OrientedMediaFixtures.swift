import ELImage
import ELImageMedia
import Foundation

/// Media with an orientation, made at test time with ffmpeg, and the references the orientation
/// tests compare against: FFmpeg's own decodes, and the EXIF definition written out pixel by pixel.
package enum OrientedMediaFixtures {
    /// The pattern's size: 4 x 3 blocks of 16 x 16 pixels, every block its own colour, so that any
    /// turn or mirror of it differs from every other.
    package static let patternWidth = 64, patternHeight = 48, blockSize = 16

    /// The colour of block (column, row) of the pattern.
    package static func blockColour(column: Int, row: Int) -> [UInt8] {
        let colours: [[UInt8]] = [
            [230, 30, 30], [30, 200, 40], [40, 60, 220], [235, 220, 40],
            [40, 210, 215], [210, 50, 200], [250, 250, 250], [20, 20, 20],
            [140, 90, 30], [120, 120, 120], [250, 150, 60], [90, 40, 140],
        ]
        return colours[row * (patternWidth / blockSize) + column]
    }

    /// The pattern as raw RGB24 bytes, written to `pattern.rgb` in `folder`.
    package static func writePattern(in folder: TemporaryFolder, width: Int = patternWidth, height: Int = patternHeight) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width { bytes += blockColour(column: x / blockSize % 4, row: y / blockSize % 3) }
        }
        let path = folder.path("pattern.rgb")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The pattern as a 2-frame lossless H.264 4:4:4 `container` file (mp4 or mov), untagged.
    package static func patternMovie(container: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("pattern.\(container)")
        try MovieFixtures.ffmpeg(["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(patternWidth)x\(patternHeight)", "-r", "25",
                                  "-i", try writePattern(in: folder), "-vf", "loop=loop=1:size=1", "-frames:v", "2",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv444p", path])
        return path
    }

    /// A copy of `source` whose container carries FFmpeg 5.1's display matrix for the `rotate`
    /// tag `degrees` (stream copy: the pictures stay as stored).
    package static func tagged(_ source: String, rotate degrees: Int, in folder: TemporaryFolder) throws -> String {
        let name = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        let path = folder.path("\(name)-rotate\(degrees).\(URL(fileURLWithPath: source).pathExtension)")
        try MovieFixtures.ffmpeg(["-i", source, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)", path])
        return path
    }

    /// ffprobe's `rotation` of the video stream's display matrix side data (counter-clockwise
    /// degrees, libavutil's `av_display_rotation_get`), or nil when it has none.
    package static func probeRotation(_ path: String) throws -> Int? {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                             "stream_side_data=side_data_type,rotation", "-of", "default=nw=1", path])
        let lines = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline)
        guard lines.contains("side_data_type=Display Matrix") else { return nil }
        return lines.first { $0.hasPrefix("rotation=") }.flatMap { Int($0.dropFirst("rotation=".count)) }
    }

    /// The video stream's width and height, as ffprobe reads them from the file (stored size).
    package static func probeSize(_ path: String) throws -> (width: Int, height: Int) {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                             "-of", "csv=p=0", path])
        let fields = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: ",").compactMap { Int($0) }
        return fields.count == 2 ? (fields[0], fields[1]) : (0, 0)
    }

    /// FFmpeg's decode of the first frame of `path` as RGBA, with its size: autorotated as
    /// ffmpeg does by default, as stored with `autorotate: false`, and `filter` after that.
    package static func ffmpegFrame(_ path: String, autorotate: Bool = true, filter: String? = nil) throws -> RGBAImage {
        var arguments = autorotate ? [] : ["-noautorotate"]
        arguments += ["-i", path, "-frames:v", "1", "-sws_flags", "accurate_rnd+full_chroma_int+bitexact"]
        if let filter { arguments += ["-vf", filter] }
        // A PAM picture: a text header with the size, then the RGBA bytes.
        let data = [UInt8](try MovieFixtures.ffmpeg(arguments + ["-pix_fmt", "rgba", "-c:v", "pam", "-f", "image2pipe", "-"]))
        let marker = Array("ENDHDR\n".utf8)
        guard let end = (0...max(0, data.count - marker.count)).first(where: { data[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { return RGBAImage(width: 0, height: 0, pixels: []) }
        let header = String(decoding: data[..<end], as: UTF8.self).split(whereSeparator: \.isNewline)
        func field(_ name: String) -> Int {
            header.first { $0.hasPrefix(name + " ") }.flatMap { Int($0.dropFirst(name.count + 1)) } ?? 0
        }
        return RGBAImage(width: field("WIDTH"), height: field("HEIGHT"), pixels: Array(data[(end + marker.count)...]))
    }

    // MARK: JPEG and EXIF

    /// The pattern as an untagged 4:4:4 JPEG made by ffmpeg (best quality).
    /// The pattern as an untagged JPEG (its bytes, also written as `untagged.jpg` in `folder`) and
    /// FFmpeg's decode of it: the picture as stored, the reference every orientation turns.
    package static func untaggedPattern(in folder: TemporaryFolder) throws -> (jpeg: [UInt8], stored: RGBAImage) {
        let jpeg = try patternJPEG(in: folder)
        let untagged = folder.path("untagged.jpg")
        try Data(jpeg).write(to: URL(fileURLWithPath: untagged))
        return (jpeg, try ffmpegFrame(untagged))
    }

    package static func patternJPEG(in folder: TemporaryFolder, width: Int = 48, height: Int = 32) throws -> [UInt8] {
        let path = folder.path("pattern.jpg")
        try MovieFixtures.ffmpeg(["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(width)x\(height)",
                                  "-i", try writePattern(in: folder, width: width, height: height),
                                  "-pix_fmt", "yuvj444p", "-q:v", "1", path])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A TIFF structure as Exif stores it: the header in the byte order asked for, then IFD0 with
    /// two entries, Make ("ELI") and Orientation (SHORT `orientation`), and no next IFD.
    package static func exifTIFF(orientation: Int, littleEndian: Bool) -> [UInt8] {
        func short(_ value: Int) -> [UInt8] {
            littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        func long(_ value: Int) -> [UInt8] {
            littleEndian ? short(value & 0xFFFF) + short(value >> 16) : short(value >> 16) + short(value & 0xFFFF)
        }
        var tiff: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        tiff += short(42) + long(8)                                    // IFD0 right after the header
        tiff += short(2)                                               // two entries
        tiff += short(0x010F) + short(2) + long(4) + [0x45, 0x4C, 0x49, 0x00]  // Make, ASCII, "ELI\0" inline
        tiff += short(0x0112) + short(3) + long(1) + short(orientation) + short(0)  // Orientation, SHORT
        tiff += long(0)                                                // no IFD1
        return tiff
    }

    /// `jpeg` with an APP1 segment holding "Exif\0\0" and `tiff` spliced in right after SOI.
    package static func splicingExif(_ tiff: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }

    /// `image` turned upright as EXIF Orientation `tag` defines it (TIFF 6.0 / Exif 2.3: which
    /// side the stored rows and columns are on): 1 as is, 2 mirrored left-right, 3 turned 180°,
    /// 4 mirrored top-bottom, 5 transposed, 6 turned 90° clockwise, 7 transversed, 8 turned 90°
    /// counter-clockwise.
    package static func applyingEXIF(_ tag: Int, to image: RGBAImage) -> RGBAImage {
        let (width, height) = (image.width, image.height)
        let swaps = tag >= 5
        let (outWidth, outHeight) = swaps ? (height, width) : (width, height)
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                let (sx, sy): (Int, Int) = switch tag {
                case 2: (width - 1 - x, y)
                case 3: (width - 1 - x, height - 1 - y)
                case 4: (x, height - 1 - y)
                case 5: (y, x)                                  // stored row 0 is the left side, column 0 the top
                case 6: (y, height - 1 - x)                     // row 0 is the right side, column 0 the top
                case 7: (width - 1 - y, height - 1 - x)         // row 0 is the right side, column 0 the bottom
                case 8: (width - 1 - y, x)                      // row 0 is the left side, column 0 the bottom
                default: (x, y)
                }
                let from = (sy * width + sx) * 4, to = (y * outWidth + x) * 4
                pixels[to..<(to + 4)] = image.pixels[from..<(from + 4)]
            }
        }
        return RGBAImage(width: outWidth, height: outHeight, pixels: pixels)
    }
}
