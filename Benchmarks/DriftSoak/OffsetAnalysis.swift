import Foundation

/// Reads a soak recording back with ffmpeg and measures, at every click, how far the sound sits
/// from the video captured at the same real moment.
///
/// - Video: every decoded frame carries its camera sequence number (`marksFrames`), so its capture
///   time is `cameraStart + sequence × interval`. The first frame gives the file's zero on the
///   monotonic clock; the others check that the video timeline follows capture (`videoResidual`).
/// - Sound: click k was captured at a known monotonic time (`DriftingSoundWriter.click`); its
///   onset in the decoded track (the first sample past half the burst's amplitude) is where the
///   file put it.
///
/// Offset = the click's time in the file − the file time of the video captured with it.
/// Positive: the sound is late.
struct OffsetAnalysis {
    struct Point: Codable {
        /// The click's time in the recording, seconds.
        var time: Double
        /// Sound minus video, milliseconds.
        var offsetMilliseconds: Double
    }

    var points: [Point] = []
    /// The largest distance (ms) of a frame from its capture time.
    var videoResidualMilliseconds = 0.0
    /// Frames missing between the first and the last (sequence numbers skipped).
    var framesMissing = 0

    static func measure(file: String, recording: SoakRecording.Result) throws -> OffsetAnalysis {
        var analysis = OffsetAnalysis()
        let video = try decodeVideo(file)
        let start = try streamStart(file, stream: "a:0")
        let samples = try decodeSound(file)
        // The frames with a readable number, the 16-bit numbers unwrapped, and when each was captured.
        var marked: [(time: Double, sequence: Int64)] = []
        for frame in video where frame.marker >= 0 {
            var sequence = Int64(frame.marker)
            if let last = marked.last?.sequence {
                while sequence < last { sequence += 1 << 16 }
            }
            marked.append((frame.time, sequence))
        }
        guard let first = marked.first, let last = marked.last, (video.first?.marker ?? -1) >= 0 else {
            throw SoakFailure("\(file) has no video, or its first frame carries no readable frame number")
        }
        analysis.framesMissing = Int(last.sequence - first.sequence + 1) - marked.count
        let captured = { (sequence: Int64) in
            Double(recording.cameraStart) / 1_000_000 + Double(sequence) * Double(recording.cameraInterval) / 1_000_000
        }
        // The file's zero on the monotonic clock: when the first recorded frame was captured.
        let zero = captured(first.sequence) - first.time
        analysis.videoResidualMilliseconds = marked.map { abs($0.time + zero - captured($0.sequence)) }.max().map { $0 * 1000 } ?? 0

        let threshold = Int32(DriftingSoundWriter.clickAmplitude * 32_767 / 2)
        let rate = Double(DriftingSoundWriter.nominalRate)
        var sample = 0
        while sample < samples.count {
            guard abs(Int32(samples[sample])) >= threshold else {
                sample += 1
                continue
            }
            let fileTime = start + Double(sample) / rate
            let monotonic = fileTime + zero - Double(recording.writer.epoch) / 1_000_000
            let k = Int(monotonic.rounded())
            if k >= 1 {
                let captured = Double(recording.writer.click(k).captured) / 1_000_000
                analysis.points.append(Point(time: fileTime, offsetMilliseconds: (fileTime - (captured - zero)) * 1000))
            }
            sample += Int(rate / 2)  // past this click
        }
        return analysis
    }

    // MARK: Reading the file

    private static func decodeVideo(_ file: String) throws -> [(time: Double, marker: Int)] {
        let times = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                        "-of", "csv=p=0", file])
        let frameTimes = String(decoding: times, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        let pixels = try run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v:0", "-vf", "crop=128:8:0:0",
                                        "-fps_mode", "passthrough", "-pix_fmt", "gray", "-f", "rawvideo", "-"])
        let frameBytes = 128 * 8
        guard pixels.count == frameTimes.count * frameBytes else {
            throw SoakFailure("ffmpeg decoded \(pixels.count / frameBytes) frames of \(file), ffprobe timed \(frameTimes.count)")
        }
        return frameTimes.enumerated().map { index, time in
            var number = 0
            for cell in 0..<16 {
                let level = pixels[index * frameBytes + 4 * 128 + cell * 8 + 4]
                if level > 160 { number |= 1 << cell } else if level > 96 { return (time, -1) }
            }
            return (time, number)
        }
    }

    private static func decodeSound(_ file: String) throws -> [Int16] {
        let bytes = try run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:a:0", "-ac", "1",
                                       "-ar", "\(DriftingSoundWriter.nominalRate)", "-f", "s16le", "-"])
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    private static func streamStart(_ file: String, stream: String) throws -> Double {
        let text = try run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=start_time",
                                       "-of", "csv=p=0", file])
        guard let start = Double(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SoakFailure("ffprobe found no stream \(stream) in \(file)")
        }
        return start
    }

    /// Runs a tool and returns its standard output; a failure carries its standard error.
    private static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        let output = Pipe(), errors = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            throw SoakFailure("cannot run \(tool) (Debian package ffmpeg; `make deps` installs it): \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SoakFailure("\(tool) \(arguments.joined(separator: " ")) failed with status \(process.terminationStatus)")
        }
        return data
    }
}
