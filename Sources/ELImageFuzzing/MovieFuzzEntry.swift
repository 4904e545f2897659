import ELImage
import ELImageMedia

/// Fuzzes `MovieDecoder`: the input is a whole movie file (any container libavformat probes),
/// opened and decoded for its first frames on one thread, within the product's own
/// `InputLimits` (FFmpeg's blocks capped as in the CLI).
enum MovieFuzzEntry: FuzzEntry {
    static func consume(_ bytes: [UInt8]) throws -> Int {
        try FuzzInputFile.with(bytes, suffix: "") { path in
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
