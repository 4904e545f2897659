// elimage-soak: a long recording of a camera with live sound whose clock drifts, measuring how
// far sound and video part over time (`make soak`: one hour at 50 ppm).
//
//     swift run -c release elimage-soak [--duration 1h] [--ppm 50] [--out out/soak]
import ArgumentParser
import ELImage
import Foundation

@main
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "elimage-soak",
        abstract: "Records the emulated camera with sound from a PulseAudio source whose clock runs off, and measures the A/V offset over time.",
        discussion: """
        A private PulseAudio server gets a pipe source fed at 48000 × (1 + PPM/10⁶) samples per real second, with a \
        click at every real second; the emulated camera marks every frame with its number. The recording is set up \
        as `elimage run --audio` sets up a camera's. Read back with ffmpeg, each click's place in the file is compared \
        with the video captured at the same moment. Writes soak.mp4, offsets.csv, drift.svg and summary.json into \
        the output folder; the exit status is 1 when the offset at the end exceeds one frame.
        """)

    @Option(help: "How long to record: seconds, or with a unit (90s, 10m, 1h).")
    var duration = "1h"

    @Option(parsing: .unconditional, help: "How far the sound source's clock runs off, in parts per million (positive: fast; -50 slow).")
    var ppm = 50.0

    @Option(help: "Frames per second of the emulated camera (320x240 YUYV).")
    var fps = 25

    @Option(help: "The folder for the recording, the offsets, the chart and the summary.")
    var out = "out/soak"

    @Option(help: "How often to say how the run goes, in seconds.")
    var progress = 60

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @Option(name: .customLong("chart-from"), help: "Only draw drift.svg again, from the offsets.csv and summary.json a soak left in this folder.")
    var chartFrom: String?

    func run() async throws {
        if let chartFrom {
            try Self.redraw(in: chartFrom)
            return
        }
        guard let duration = Self.seconds(duration), duration > 3 else {
            throw ValidationError("--duration \(self.duration): give more than 3 seconds, e.g. 90s, 10m or 1h")
        }
        guard (1...60).contains(fps) else { throw ValidationError("--fps \(fps): use 1...60") }
        guard abs(ppm) < 20_000 else { throw ValidationError("--ppm \(ppm): use less than ±20000") }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let file = out + "/soak.mp4"
        let quiet = json
        let say: @Sendable (String) -> Void = { line in
            if !quiet { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }  // unbuffered: a log shows progress at once
        }
        say("recording \(Self.clock(duration)) of the emulated camera at \(fps) fps with a sound source \(ppm) ppm off into \(file)")
        let options = SoakRecording.Options(duration: .seconds(duration), ppm: ppm, framesPerSecond: fps, output: file,
                                            progressEvery: .seconds(max(1, progress)))
        let recording = try await SoakRecording(options: options).run(say: say)
        let analysis = try OffsetAnalysis.measure(file: file, recording: recording)
        let summary = SoakSummary(analysis: analysis, recording: recording, ppm: ppm, framesPerSecond: fps)

        var csv = "time_s,offset_ms\n"
        for point in analysis.points { csv += String(format: "%.3f,%.2f\n", point.time, point.offsetMilliseconds) }
        try csv.write(toFile: out + "/offsets.csv", atomically: true, encoding: .utf8)
        try Self.chart(analysis.points, seconds: duration, ppm: ppm, frameMilliseconds: 1000 / Double(fps))
            .svg().write(toFile: out + "/drift.svg", atomically: true, encoding: .utf8)
        let encoded = try JSONEncoder.pretty.encode(summary)
        try encoded.write(to: URL(fileURLWithPath: out + "/summary.json"))
        if json {
            print(String(decoding: encoded, as: UTF8.self))
        } else {
            print(summary.text)
            print("wrote \(out)/offsets.csv, \(out)/drift.svg, \(out)/summary.json")
        }
        if !summary.withinOneFrame { throw ExitCode.failure }
    }

    static func chart(_ points: [OffsetAnalysis.Point], seconds: Double, ppm: Double, frameMilliseconds: Double) -> OffsetChart {
        OffsetChart(points: points, ppm: ppm, frameMilliseconds: frameMilliseconds,
                    title: "A/V offset over \(clock(seconds)), sound source \(ppmText(ppm)) ppm off")
    }

    /// Draws `folder`/drift.svg from the soak's offsets.csv and summary.json there.
    static func redraw(in folder: String) throws {
        let summary = try JSONDecoder().decode(SoakSummary.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/summary.json")))
        let csv = try String(contentsOfFile: folder + "/offsets.csv", encoding: .utf8)
        let points = csv.split(separator: "\n").dropFirst().compactMap { line -> OffsetAnalysis.Point? in
            let fields = line.split(separator: ",").compactMap { Double($0) }
            return fields.count == 2 ? OffsetAnalysis.Point(time: fields[0], offsetMilliseconds: fields[1]) : nil
        }
        guard !points.isEmpty else { throw SoakFailure("\(folder)/offsets.csv holds no offsets") }
        try chart(points, seconds: summary.seconds.rounded(), ppm: summary.ppm, frameMilliseconds: summary.frameMilliseconds)
            .svg().write(toFile: folder + "/drift.svg", atomically: true, encoding: .utf8)
    }

    /// "90", "90s", "10m", "1h" in seconds.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        if let last = text.last, let unit = units[last] { return Double(text.dropLast()).map { $0 * unit } }
        return Double(text)
    }

    static func clock(_ seconds: Double) -> String {
        seconds >= 3600 && seconds.truncatingRemainder(dividingBy: 3600) == 0 ? "\(Int(seconds / 3600)) h"
            : seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int(seconds / 60)) min" : "\(Int(seconds)) s"
    }

    static func ppmText(_ ppm: Double) -> String {
        ppm == ppm.rounded() ? String(format: "%+.0f", ppm) : String(format: "%+.1f", ppm)
    }
}

extension JSONEncoder {
    static var pretty: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}
