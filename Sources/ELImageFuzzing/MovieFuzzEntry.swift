import CFFmpeg
import ELImage
import ELImageMedia

/// Fuzzes `MovieDecoder`: the input is a whole movie file (any container libavformat probes),
/// opened and decoded for its first frames on one thread, with FFmpeg's blocks capped at
/// `FuzzLimits.ffmpegBlockBytes`.
enum MovieFuzzEntry: FuzzEntry {
    /// FFmpeg's default largest block (`INT_MAX`), restored after each input: the cap is
    /// process-wide, and the regression tests share their process with other suites.
    private static let ffmpegDefaultBlockBytes = Int(Int32.max)

    static func consume(_ bytes: [UInt8]) throws -> Int {
        av_max_alloc(FuzzLimits.ffmpegBlockBytes)
        defer { av_max_alloc(ffmpegDefaultBlockBytes) }
        return try FuzzInputFile.with(bytes, suffix: "") { path in
            let decoder = try MovieDecoder(path: path, threadCount: 1)
            decoder.damageHandler = { _ in }  // builds the damage reports, so that their code is fuzzed too
            var frames = 0
            while frames < FuzzLimits.framesPerInput, let frame = try decoder.nextFrame() {
                try checkConsistent(frame.buffer, number: frames, parser: "MovieDecoder")
                frames += 1
            }
            return frames
        }
    }
}
