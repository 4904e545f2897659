import ELImage
import ELImageMedia

/// Fuzzes `Y4MReader` (and through it `Y4MHeader`): the input is a whole `.y4m` file.
enum Y4MFuzzEntry: FuzzEntry {
    static func consume(_ bytes: [UInt8]) throws -> Int {
        try FuzzInputFile.with(bytes, suffix: ".y4m") { path in
            let reader = try Y4MReader(path: path)
            defer { reader.close() }
            let header = reader.header
            var frames = 0
            while frames < FuzzLimits.framesPerInput, let frame = try reader.nextFrame() {
                try checkConsistent(frame, number: frames, parser: "Y4MReader")
                try FuzzContractViolation.check(
                    frame.width == header.width && frame.height == header.height && frame.format == header.pixelFormat,
                    "Y4MReader frame \(frames) is \(frame.width)x\(frame.height) \(frame.format), the header says \(header.line)")
                frames += 1
            }
            return frames
        }
    }
}
