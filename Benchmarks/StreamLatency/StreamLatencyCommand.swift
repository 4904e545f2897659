// elimage-stream-latency: glass-to-glass latency of a live stream on loopback. Each frame carries
// its number (FrameStamp); a viewer (ffmpeg with its low-delay settings) plays the stream back from
// the server, and each number's arrival is timed against the moment its frame entered the graph.
//
//     swift run -c release elimage-stream-latency [--protocol rtmp --protocol srt] [--seconds 20] [--out out/latency]
import ArgumentParser
import ELImage
import ELImageMedia
import ELImageTesting
import Foundation

@main
struct StreamLatencyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "elimage-stream-latency",
        abstract: "Glass-to-glass latency of ELImage's live streams (RTMP through nginx, SRT through srt-live-transmit) on loopback.",
        discussion: """
        Frames of SIZE are made at FPS in real time, each with its number drawn along its top edge, and streamed with \
        x264 zerolatency (ultrafast, constant bit rate, a keyframe a second). A viewer, ffmpeg -fflags nobuffer -flags \
        low_delay, plays the stream from the server and reads the numbers from the decoded pictures: the time from a \
        frame entering the graph to its picture coming out of the viewer's decoder is its latency. Prints p50/p99 per \
        protocol and how long frames waited for the network inside ELImage; writes latency-PROTOCOL.csv and \
        summary.json into --out.
        """)

    enum Transport: String, ExpressibleByArgument, CaseIterable, Codable { case rtmp, srt }

    @Option(name: .customLong("protocol"), help: "rtmp or srt (repeatable; default both).")
    var protocols: [Transport] = []

    @Option(help: "Seconds streamed per protocol.")
    var seconds = 20

    @Option(help: "Frames per second.")
    var fps = 30

    @Option(help: "Picture size, WIDTHxHEIGHT (the width a multiple of 16).")
    var size = "640x360"

    @Option(help: "Bit rate in kbit/s (constant).")
    var bitrate = 2000

    @Option(name: .customLong("srt-latency"), help: "SRT's receive buffer in milliseconds, on both sides (SRT's default is 120).")
    var srtLatency = 120

    /// Who encodes and sends the stamped frames.
    enum Sender: String, ExpressibleByArgument, CaseIterable, Codable { case elimage, ffmpeg }

    @Option(name: .customLong("sender"), help: "Who sends (repeatable; default both): elimage (the framework's VideoEncoder), or ffmpeg (libx264 with the same settings, fed the same raw frames on its standard input): the reference through the same server and viewer.")
    var senders: [Sender] = []

    @Option(name: .customLong("viewer-threads"), help: "The viewer's decoder threads (0: ffmpeg's choice, frame threads that hold frames back; 1: none held).")
    var viewerThreads = 0

    @Option(help: "The folder for the per-frame CSV files and summary.json.")
    var out = "out/latency"

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() async throws {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 160, parts[0] % 16 == 0, parts[1] >= 90, parts[1] % 2 == 0 else {
            throw ValidationError("--size \(size): give WIDTHxHEIGHT with the width a multiple of 16, e.g. 640x360")
        }
        guard (1...120).contains(fps), seconds >= 2 else { throw ValidationError("--fps 1...120 and --seconds 2 or more") }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let stamp = FrameStamp(width: parts[0], height: parts[1])
        var results: [LatencyResult] = []
        for chosen in protocols.isEmpty ? Transport.allCases : protocols {
            for sender in senders.isEmpty ? Sender.allCases : senders {
                let result = try await measure(chosen, sender: sender, stamp: stamp)
                try result.csv.write(toFile: out + "/latency-\(chosen.rawValue)-\(sender.rawValue).csv", atomically: true, encoding: .utf8)
                results.append(result)
                if !json { print(result.line) }
            }
        }
        let encoded = try JSONEncoder.pretty.encode(results)
        try encoded.write(to: URL(fileURLWithPath: out + "/summary.json"))
        if json { print(String(decoding: encoded, as: UTF8.self)) }
        if results.contains(where: { $0.received == 0 }) { throw ExitCode(1) }
    }

    /// Streams `seconds` of stamped frames over `chosen` and times their arrival at the viewer.
    private func measure(_ chosen: Transport, sender: Sender, stamp: FrameStamp) async throws -> LatencyResult {
        let context = try RenderContext()
        var server: PrivateStreamingServer?
        var relay: pid_t?
        // RTMP's viewer joins once the stream is published (nginx refuses a play before); SRT's
        // listens on its UDP port before.
        var reader: LatencyReader?
        let address: String
        switch chosen {
        case .rtmp:
            let started = try PrivateStreamingServer.start()
            server = started
            address = started.rtmpURL(stream: "latency")
        case .srt:
            // srt-live-transmit takes the stream as an SRT listener and hands it on by UDP to the viewer.
            let srtPort = try ServerProcess.freePort(udp: true), udpPort = try ServerProcess.freePort(udp: true)
            reader = try LatencyReader(input: "udp://127.0.0.1:\(udpPort)?overrun_nonfatal=1&fifo_size=1000000",
                                       inputOptions: ["-threads", "\(viewerThreads)", "-f", "mpegts", "-probesize", "32768", "-fpsprobesize", "0"], stamp: stamp)
            let binary = try ServerProcess.binary(["/usr/bin/srt-live-transmit"], package: "srt-tools")
            let folder = try ServerProcess.makeFolder("elimage-latency")
            let pid = try ServerProcess.spawn(binary, arguments: [binary, "-q", "srt://127.0.0.1:\(srtPort)?mode=listener&latency=\(srtLatency)",
                                                                  "udp://127.0.0.1:\(udpPort)"], errorLog: folder + "/log")
            try ServerProcess.waitUntilReady(pid, name: "srt-live-transmit", log: folder + "/log") { ServerProcess.usesUDP(port: srtPort) }
            relay = pid
            address = "srt://127.0.0.1:\(srtPort)"
        }
        defer {
            reader?.stop()
            if let relay { ServerProcess.stop(relay) }
            server?.stop()
        }
        if sender == .ffmpeg {
            let sent = try await sendWithFFmpeg(to: address, stamp: stamp, joining: { number in
                if reader == nil, number == fps / 2 {
                    reader = try LatencyReader(input: address, inputOptions: ["-threads", "\(viewerThreads)", "-rtmp_live", "live"], stamp: stamp)
                }
            })
            try await Task.sleep(for: .seconds(1))  // the last frames through the server and the viewer
            reader?.stop()
            await context.close()
            return LatencyResult(protocol: chosen, sender: sender, sent: sent, received: reader?.received ?? [:], statistics: RecordingStatistics())
        }
        var settings = EncoderSettings()
        settings.preset = .ultrafast
        settings.tune = "zerolatency"
        settings.rateControl = .bitrate(kilobitsPerSecond: bitrate, maximumKilobitsPerSecond: bitrate, bufferKilobits: bitrate)
        settings.keyframeInterval = fps
        settings.frameRate = .init(fps, 1)
        let input = RawDataInput()
        let encoder = try VideoEncoder(settings: settings)
        input --> encoder
        guard let target = StreamTarget(address) else { throw ValidationError("not a stream address: \(address)") }
        var options = LiveStreamOptions()
        options.srtLatency = .milliseconds(srtLatency)
        try encoder.start(streamingTo: target, options: options, audio: .off)

        let count = seconds * fps
        var sent: [ContinuousClock.Instant] = []
        sent.reserveCapacity(count)
        let start = ContinuousClock.now + .milliseconds(200)
        for number in 0..<count {
            let due = start + .nanoseconds(Int64(number) * 1_000_000_000 / Int64(fps))
            try await Task.sleep(until: due, clock: .continuous)
            if reader == nil, number == fps / 2 {
                reader = try LatencyReader(input: address, inputOptions: ["-threads", "\(viewerThreads)", "-rtmp_live", "live"], stamp: stamp)
            }
            let pixels = stamp.picture(number)
            sent.append(.now)
            try await input.process(pixels, width: stamp.width, height: stamp.height, format: .rgba,
                                    timestamp: MediaTime(frame: Int64(number), framesPerSecond: Int32(fps)), on: context)
        }
        let summary = try await encoder.finish()
        try await Task.sleep(for: .seconds(1))  // the last frames through the server and the viewer
        reader?.stop()
        await context.close()
        return LatencyResult(protocol: chosen, sender: sender, sent: sent, received: reader?.received ?? [:], statistics: summary.statistics)
    }
}

extension StreamLatencyCommand {
    /// Feeds the stamped frames in real time to an ffmpeg that encodes them as VideoEncoder does
    /// (libx264 ultrafast, zerolatency, the same constant bit rate and keyframe interval) and sends
    /// them to `address`; returns when each frame was written to its input.
    func sendWithFFmpeg(to address: String, stamp: FrameStamp,
                        joining: (Int) throws -> Void) async throws -> [ContinuousClock.Instant] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        let container = address.hasPrefix("srt://") ? ["-f", "mpegts", address + "?pkt_size=1316&latency=\(srtLatency * 1000)"] : ["-f", "flv", address]
        process.arguments = ["-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "\(stamp.width)x\(stamp.height)",
                             "-framerate", "\(fps)", "-i", "-", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
                             "-b:v", "\(bitrate)k", "-maxrate", "\(bitrate)k", "-bufsize", "\(bitrate)k", "-g", "\(fps)",
                             "-pix_fmt", "yuv420p", "-flush_packets", "1"] + container
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.standardError
        try process.run()
        var sent: [ContinuousClock.Instant] = []
        let start = ContinuousClock.now + .milliseconds(200)
        for number in 0..<(seconds * fps) {
            try await Task.sleep(until: start + .nanoseconds(Int64(number) * 1_000_000_000 / Int64(fps)), clock: .continuous)
            try joining(number)
            let pixels = stamp.picture(number)
            sent.append(.now)
            try input.fileHandleForWriting.write(contentsOf: Data(pixels))
        }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return sent
    }
}

extension JSONEncoder {
    static var pretty: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}
