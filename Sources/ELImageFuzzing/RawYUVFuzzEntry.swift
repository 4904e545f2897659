import ELImage
import ELImageMedia

/// Fuzzes `RawYUVReader`: the frame size, format and rate come from the input's first bytes (see
/// `RawYUVFuzzInput`), the file is the rest.
enum RawYUVFuzzEntry: FuzzEntry {
    static func consume(_ bytes: [UInt8]) throws -> Int {
        let input = RawYUVFuzzInput(bytes)
        return try FuzzInputFile.with(Array(input.file), suffix: ".yuv") { path in
            let reader = try RawYUVReader(path: path, width: input.width, height: input.height,
                                          format: input.format, frameRate: input.frameRate)
            defer { reader.close() }
            var frames = 0
            while frames < FuzzLimits.framesPerInput, let frame = try reader.nextFrame() {
                try checkConsistent(frame, number: frames, parser: "RawYUVReader")
                try FuzzContractViolation.check(
                    frame.width == input.width && frame.height == input.height && frame.format == input.format,
                    "RawYUVReader frame \(frames) is \(frame.width)x\(frame.height) \(frame.format), asked for \(input.width)x\(input.height) \(input.format)")
                frames += 1
            }
            let frameBytes = input.format.byteCount(width: input.width, height: input.height)
            try FuzzContractViolation.check(
                frames * frameBytes <= input.file.count,
                "RawYUVReader returned \(frames) frames of \(frameBytes) bytes from a \(input.file.count)-byte file")
            return frames
        }
    }
}
