import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// A recording keeps its source's chroma siting: a centred-chroma (C420jpeg) Y4M is packed centred
/// and tagged `center`, with every plane as close to the source as FFmpeg/libx264's own encode;
/// a left-sited (C420mpeg2) one stays `left`; an explicit setting overrides.
@Suite("Chroma siting kept into H.264/MP4", .closesContexts)
struct ChromaSitingEncodeTests {
    /// `frames` frames of the bundled Big Buck Bunny clip scaled to `width`x`height`, as a Y4M file
    /// with its chroma sited at `siting` ("center": C420jpeg, "left": C420mpeg2).
    static func clip(_ siting: String, width: Int = 640, height: Int = 360, frames: Int = 24,
                     in folder: TemporaryFolder) throws -> String {
        let path = folder.path("source-\(siting).y4m")
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", EncoderFixtures.bunny, "-frames:v", "\(frames)",
                                   "-vf", "scale=\(width):\(height)", "-pix_fmt", "yuv420p",
                                   "-chroma_sample_location", siting, "-f", "yuv4mpegpipe", path])
        return path
    }

    /// Records `source` through a `YUVFileInput` (no filter) with x264 at CRF 18, veryfast.
    static func record(_ source: String, to path: String, chromaLocation: ChromaLocation? = nil) async throws -> RecordingSummary {
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        var settings = EncoderSettings()
        settings.preset = .veryfast
        settings.rateControl = .constantQuality(18)
        settings.chromaLocation = chromaLocation
        let input = try YUVFileInput(y4m: source)
        let encoder = try VideoEncoder(settings: settings)
        input --> encoder
        try encoder.start(recordingTo: path)
        try await input.run(on: context)
        let summary = try await encoder.finish()
        #expect(failures.count == 0)
        return summary
    }

    static func size(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    @Test("a C420jpeg source is recorded centred: tagged center, every plane within 0.3 dB of FFmpeg's, size <= 1.05x")
    func centredSourceKeepsSiting() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.clip("center", in: folder)
        let header = try String(decoding: FileHandle(forReadingFrom: URL(fileURLWithPath: source)).read(upToCount: 80) ?? Data(),
                                as: UTF8.self)
        try #require(header.contains("C420jpeg"), "ffmpeg wrote \(header)")

        let ours = folder.path("elimage.mp4"), theirs = folder.path("ffmpeg.mp4")
        let summary = try await Self.record(source, to: ours)
        #expect(summary.statistics.encoded == 24)
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", source, "-c:v", "libx264",
                                   "-preset", "veryfast", "-crf", "18", theirs])

        #expect(try EncoderFixtures.probeStream(ours)["chroma_location"] == "center")
        let ourQuality = try EncoderFixtures.quality(of: ours, against: source, in: folder)
        let theirQuality = try EncoderFixtures.quality(of: theirs, against: source, in: folder)
        let ratio = Double(try Self.size(ours)) / Double(max(1, try Self.size(theirs)))
        print("C420jpeg 640x360: elimage \(ourQuality); FFmpeg \(theirQuality); size ratio " + String(format: "%.3f", ratio))
        for (plane, mine, reference) in [("Y", ourQuality.y, theirQuality.y), ("U", ourQuality.u, theirQuality.u),
                                         ("V", ourQuality.v, theirQuality.v)] {
            #expect(mine >= reference - 0.3, "\(plane): elimage \(ourQuality) vs FFmpeg \(theirQuality)")
        }
        #expect(ratio <= 1.05)
    }

    @Test("a C420mpeg2 source stays left, in MP4 and in raw H.264")
    func leftSourceStaysLeft() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.clip("left", width: 320, height: 180, frames: 10, in: folder)
        let mp4 = folder.path("left.mp4"), annexB = folder.path("left.h264")
        _ = try await Self.record(source, to: mp4)
        _ = try await Self.record(source, to: annexB)
        #expect(try EncoderFixtures.probeStream(mp4)["chroma_location"] == "left")
        #expect(try EncoderFixtures.probeStream(annexB)["chroma_location"] == "left")
    }

    @Test("EncoderSettings.chromaLocation overrides the source's: a C420jpeg source recorded as topLeft and as left")
    func explicitSitingOverrides() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.clip("center", width: 320, height: 180, frames: 10, in: folder)
        for (siting, tag) in [(ChromaLocation.topLeft, "topleft"), (.left, "left")] {
            let path = folder.path("\(siting).h264")
            _ = try await Self.record(source, to: path, chromaLocation: siting)
            #expect(try EncoderFixtures.probeStream(path)["chroma_location"] == tag)
        }
        let centred = folder.path("center.h264")
        _ = try await Self.record(source, to: centred)
        #expect(try EncoderFixtures.probeStream(centred)["chroma_location"] == "center")
    }

    @Test("the siting is fixed at the first frame: later frames sited otherwise are all encoded, the stream tagged as the first")
    func sitingFixedAtFirstFrame() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let input = RawDataInput()
        let encoder = try VideoEncoder()
        input --> encoder
        let path = folder.path("mixed.h264")
        try encoder.start(recordingTo: path)
        let sitings: [ChromaLocation] = [.center, .left, .topLeft, .left, .center, .left]
        for (index, siting) in sitings.enumerated() {
            let width = 64, height = 32
            let data = (0..<(width * height * 3 / 2)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
            let buffer = try PixelBuffer(format: .i420, width: width, height: height, data: data,
                                         timestamp: MediaTime(frame: Int64(index), framesPerSecond: 30), chromaLocation: siting)
            try await input.process(buffer, on: context)
        }
        let summary = try await encoder.finish()
        #expect(summary.statistics.encoded == sitings.count)
        #expect(failures.count == 0)
        #expect(try EncoderFixtures.probeStream(path)["chroma_location"] == "center")
        #expect(try EncoderFixtures.decodedFrameCount(path) == sitings.count)
    }

    @Test("elimage run in.y4m -o out.mp4 keeps a C420jpeg input's centred chroma (Cb/Cr within 0.3 dB of FFmpeg's) and tags it")
    func commandLineKeepsSiting() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.clip("center", width: 320, height: 180, frames: 10, in: folder)
        let output = folder.path("cli.mp4")
        let result = try await BuiltProgram(name: "elimage").run(["run", source, "--crf", "18", "--preset", "veryfast",
                                                                  "-o", output])
        try #require(result.status == 0, "\(result.errors)")
        #expect(try EncoderFixtures.probeStream(output)["chroma_location"] == "center")
        let theirs = folder.path("ffmpeg.mp4")
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", source, "-c:v", "libx264",
                                   "-preset", "veryfast", "-crf", "18", theirs])
        let ours = try EncoderFixtures.quality(of: output, against: source, in: folder)
        let reference = try EncoderFixtures.quality(of: theirs, against: source, in: folder)
        #expect(ours.u >= reference.u - 0.3 && ours.v >= reference.v - 0.3, "elimage \(ours) vs FFmpeg \(reference)")
    }
}
