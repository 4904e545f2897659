import ELImage
import ELImageMedia
import ELImageTesting
import Foundation
import Testing

/// Frames, feeding and ffprobe/ffmpeg oracles for the encoder tests.
package enum EncoderFixtures {
    /// The graph of an encoder test: a `RawDataInput` connected to a new `VideoEncoder`.
    package static func rawInputIntoEncoder(_ settings: EncoderSettings = EncoderSettings()) throws
        -> (input: RawDataInput, encoder: VideoEncoder) {
        let encoder = try VideoEncoder(settings: settings)
        let input = RawDataInput()
        input --> encoder
        return (input, encoder)
    }

    package static let bunny = Repository.path("Examples/Media/bigbuckbunny.mp4")
    package static let astronaut = Repository.path("Examples/Media/astronaut.png")

    /// The first `count` frames of Big Buck Bunny (1280x720, moving), decoded by ffmpeg to RGBA.
    package static func bunnyFrames(_ count: Int) throws -> [RGBAImage] {
        let data = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", bunny, "-frames:v", "\(count)",
                                          "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        let size = 1280 * 720 * 4
        return (0..<(data.count / size)).map { index in
            RGBAImage(width: 1280, height: 720, pixels: [UInt8](data[(index * size)..<((index + 1) * size)]))
        }
    }

    /// The astronaut photo as RGBA, decoded once.
    package static let astronautImage: RGBAImage? = try? PNGFile.read(astronaut)

    /// `count` frames of `width` x `height` (at most 512 x 512) panning diagonally over the
    /// astronaut photo, one pixel right and down per frame.
    package static func pannedAstronaut(width: Int, height: Int, count: Int) throws -> [RGBAImage] {
        guard let photo = astronautImage else { throw ToolFailure(tool: "PNGFile", status: 1, message: "cannot read \(astronaut)") }
        return (0..<count).map { index in
            let shiftX = index % (photo.width - width + 1), shiftY = index % (photo.height - height + 1)
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for y in 0..<height {
                let source = ((y + shiftY) * photo.width + shiftX) * 4
                pixels.replaceSubrange((y * width * 4)..<((y + 1) * width * 4), with: photo.pixels[source..<(source + width * 4)])
            }
            return RGBAImage(width: width, height: height, pixels: pixels)
        }
    }

    /// Sends `frames` through `input` with `timestamps` (default frame n at n/30 s), one at a time.
    /// Sends `frames` through `pipeline`, stamped `timestamps` or 30 fps from zero.
    package static func feed(_ frames: [RGBAImage], into pipeline: EmbeddedPipeline,
                             timestamps: [MediaTime]? = nil) async throws {
        for (index, frame) in frames.enumerated() {
            var frame = frame
            frame.timestamp = timestamps?[index] ?? MediaTime(frame: Int64(index), framesPerSecond: 30)
            try await pipeline.send(frame)
        }
    }

    package static func feed(_ frames: [RGBAImage], into input: RawDataInput, on context: RenderContext,
                     timestamps: [MediaTime]? = nil) async throws {
        for (index, frame) in frames.enumerated() {
            let time = timestamps?[index] ?? MediaTime(frame: Int64(index), framesPerSecond: 30)
            try await input.process(frame.pixels, width: frame.width, height: frame.height, format: .rgba,
                                    timestamp: time, on: context)
        }
    }

    // MARK: Quality against a source

    /// PSNR per plane and FFmpeg's weighted average (4:2:0: (4 Y + U + V) / 6), from the mean
    /// squared error over all frames, as FFmpeg's `psnr` filter reports it.
    package struct Quality: CustomStringConvertible {
        package var y = 0.0, u = 0.0, v = 0.0, average = 0.0
        package var description: String {
            String(format: "Y %.2f U %.2f V %.2f avg %.2f dB", y, u, v, average)
        }
    }

    /// Compares `encoded` with `source`, decoded by FFmpeg, frame by frame from each one's start.
    package static func quality(of encoded: String, against source: String, in folder: TemporaryFolder) throws -> Quality {
        let stats = folder.path("psnr-\(UUID().uuidString).log")
        _ = try runTool("ffmpeg", ["-v", "error", "-i", encoded, "-i", source,
                                   "-lavfi", "[0:v]setpts=PTS-STARTPTS[a];[1:v]setpts=PTS-STARTPTS[b];[a][b]psnr=stats_file=\(stats)",
                                   "-f", "null", "-"])
        var sums = [0.0, 0.0, 0.0], frames = 0
        for line in try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n") {
            var fields: [String: Double] = [:]
            for pair in line.split(separator: " ") {
                let parts = pair.split(separator: ":", maxSplits: 1)
                if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
            }
            guard let y = fields["mse_y"], let u = fields["mse_u"], let v = fields["mse_v"] else { continue }
            sums[0] += y; sums[1] += u; sums[2] += v
            frames += 1
        }
        try #require(frames > 0, "no PSNR lines in \(stats)")
        func psnr(_ mse: Double) -> Double { 10 * log10(255 * 255 / max(mse, 1e-12)) }
        let mse = sums.map { $0 / Double(frames) }
        return Quality(y: psnr(mse[0]), u: psnr(mse[1]), v: psnr(mse[2]),
                       average: psnr((4 * mse[0] + mse[1] + mse[2]) / 6))
    }

    // MARK: ffprobe

    /// The first video stream's fields (`codec_name`, `width`, `color_space`, ...).
    package static func probeStream(_ path: String) throws -> [String: String] {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                             "stream=codec_name,profile,width,height,pix_fmt,color_range,color_space,color_transfer,color_primaries,time_base,chroma_location",
                                             "-of", "default=noprint_wrappers=1", path])
        var fields: [String: String] = [:]
        for line in String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// The presentation time (seconds) of every frame ffprobe decodes, in presentation order.
    package static func probeFrameTimes(_ path: String) throws -> [Double] {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                             "frame=best_effort_timestamp_time", "-of", "csv=p=0", path])
        return String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline)
            .compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
    }

    /// Frames ffprobe decodes from `path` (a damaged end is tolerated: what decodes counts).
    /// A `seconds` long 320x240 clip at 25 fps of moving noise, with a 440 Hz tone in AAC: x264
    /// needs a whole 1500 kbit/s stream for it (what a slow link cannot carry).
    package static func writeNoiseClip(to path: String, seconds: Int) throws {
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=\(seconds),noise=alls=60:allf=t",
                               "-f", "lavfi", "-i", "sine=f=440:d=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10",
                               "-c:a", "aac", "-shortest", path])
    }

    package static func decodedFrameCount(_ path: String) throws -> Int {
        let output = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                             "stream=nb_read_frames", "-of", "csv=p=0", path])
        return Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines
            .union(CharacterSet(charactersIn: ",")))) ?? -1
    }

    /// ffmpeg's decode of `path` as raw `pixelFormat` frames.
    package static func decode(_ path: String, pixelFormat: String, extra: [String] = []) throws -> Data {
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path] + extra + ["-f", "rawvideo", "-pix_fmt", pixelFormat, "-"])
    }

    /// Writes `frames` one after another as raw RGBA to `path`.
    package static func writeRaw(_ frames: [RGBAImage], to path: String) throws {
        var data = Data()
        for frame in frames { data.append(contentsOf: frame.pixels) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Sum of squared differences and count over equal-length byte ranges (fast in debug builds).
    package static func squaredError(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> (sum: Double, count: Int) {
        let count = min(a.count, b.count)
        var sum: Int64 = 0
        for index in 0..<count {
            let difference = Int64(a[index]) - Int64(b[index])
            sum += difference * difference
        }
        return (Double(sum), count)
    }

    /// PSNR (dB) from a sum of squared 8-bit differences over `count` samples; infinity when equal.
    /// Nothing to compare is no match: it records an issue and gives -infinity, which no floor passes.
    package static func psnr(sum: Double, count: Int, sourceLocation: SourceLocation = #_sourceLocation) -> Double {
        guard count > 0 else {
            Issue.record("PSNR of nothing: no samples were compared (an empty decode or frame)", sourceLocation: sourceLocation)
            return -.infinity
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(count)))
    }

    /// PSNR (dB) between two byte buffers of the same length; buffers of different lengths (a
    /// frame of another size, a cut decode) record an issue and give -infinity.
    package static func psnr(_ a: [UInt8], _ b: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Double {
        guard a.count == b.count else { return mismatchedLengths(a.count, b.count, sourceLocation) }
        let error = a.withUnsafeBytes { first in b.withUnsafeBytes { second in squaredError(first, second) } }
        return psnr(sum: error.sum, count: error.count, sourceLocation: sourceLocation)
    }

    /// PSNR (dB) between a byte array and Data of the same length (as `psnr(_:_:)` for two arrays).
    package static func psnr(_ a: [UInt8], _ b: Data, sourceLocation: SourceLocation = #_sourceLocation) -> Double {
        guard a.count == b.count else { return mismatchedLengths(a.count, b.count, sourceLocation) }
        let error = a.withUnsafeBytes { first in b.withUnsafeBytes { second in squaredError(first, second) } }
        return psnr(sum: error.sum, count: error.count, sourceLocation: sourceLocation)
    }

    private static func mismatchedLengths(_ first: Int, _ second: Int, _ sourceLocation: SourceLocation) -> Double {
        Issue.record("PSNR of buffers of different lengths, \(first) and \(second) bytes: another size or a cut decode",
                     sourceLocation: sourceLocation)
        return -.infinity
    }
}

/// Collects a render context's failures.
package func failureCollector(on context: RenderContext) -> Collector<NodeFailure> {
    let failures = Collector<NodeFailure>()
    context.setErrorHandler { failures.append($0) }
    return failures
}

/// Collects a VideoEncoder's events from `context`'s event stream.
package func eventCollector(for encoder: VideoEncoder, on context: RenderContext) -> MessageCollector<RecordingEvent> {
    MessageCollector(of: encoder, on: context)
}

