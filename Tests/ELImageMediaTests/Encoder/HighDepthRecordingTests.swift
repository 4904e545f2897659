import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// 10-bit and HDR end to end: 10-bit files in and out (Y4M C420p10, High 10 MP4, 16-bit PNG),
/// HDR tags and metadata kept into the MP4, and tone mapping to SDR checked against FFmpeg's
/// zscale + tonemap and libplacebo on the same frames.
@Suite("10-bit and HDR files", .closesContexts)
struct HighDepthRecordingTests {
    /// `frames` frames of the bundled Big Buck Bunny clip at `width`x`height` as 10-bit 4:2:0
    /// (`yuv420p10le`), lightly blurred at 10 bits so the low bits carry picture, in a Y4M file.
    static func tenBitClip(frames: Int = 12, width: Int = 640, height: Int = 360, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("source10.y4m")
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", EncoderFixtures.bunny, "-frames:v", "\(frames)",
                                   "-vf", "scale=\(width):\(height),format=yuv420p10le,gblur=sigma=0.6",
                                   "-strict", "-1", "-f", "yuv4mpegpipe", path])
        return path
    }

    /// FFmpeg's PSNR of each plane (Y, U, V) of `distorted` against `reference` over all frames
    /// (from the mean of the frames' squared errors), with `peak` the samples' largest value
    /// (1023 at 10 bits).
    static func averagePSNR(_ distorted: String, against reference: String, peak: Double = 1023) throws -> [Double] {
        let output = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", distorted, "-i", reference,
                                            "-lavfi", "psnr=stats_file=-", "-f", "null", "-"])
        var sums = [0.0, 0.0, 0.0], frames = 0
        for line in String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let fields = Dictionary(line.split(separator: " ").compactMap { field -> (String, Double)? in
                let parts = field.split(separator: ":")
                return parts.count == 2 ? (String(parts[0]), Double(parts[1]) ?? -1) : nil
            }, uniquingKeysWith: { first, _ in first })
            guard let y = fields["mse_y"], let u = fields["mse_u"], let v = fields["mse_v"] else { continue }
            sums = [sums[0] + y, sums[1] + u, sums[2] + v]
            frames += 1
        }
        guard frames > 0 else { throw ToolFailure(tool: "ffmpeg psnr", status: 0, message: "no frames compared") }
        return sums.map { sum in sum == 0 ? .infinity : 10 * log10(peak * peak / (sum / Double(frames))) }
    }

    /// What `command` prints on standard output and standard error together.
    static func shellOutput(_ command: [String]) throws -> String {
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return String(decoding: try runTool("sh", ["-c", quoted + " 2>&1"]), as: UTF8.self)
    }

    /// Records what `source` delivers when `run` runs it, with `settings`, into `path`; no node fails.
    static func record(_ source: any ImageOutput, run: (RenderContext) async throws -> Void,
                       settings: EncoderSettings, to path: String) async throws -> RecordingSummary {
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let encoder = try VideoEncoder(settings: settings)
        source --> encoder
        try encoder.start(recordingTo: path)
        try await run(context)
        let summary = try await encoder.finish()
        #expect(failures.count == 0)
        return summary
    }

    static func header(of path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        return String(decoding: (try handle.read(upToCount: 120) ?? Data()).prefix { $0 != 0x0A }, as: UTF8.self)
    }

    static func size(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    /// FFmpeg's generated patterns at 10 bits: colour bars and saturated shapes, hard chroma edges.
    static func pattern(_ name: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("\(name)10.y4m")
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "\(name)=size=640x360:rate=25",
                                   "-frames:v", "4", "-vf", "format=yuv420p10le", "-strict", "-1", path])
        return path
    }

    @Test("A C420p10 Y4M through the graph into a C420p10 Y4M: every plane >= 70 dB at 10 bits (film, colour bars, test patterns)",
          arguments: ["bunny", "testsrc2", "smptehdbars"])
    func tenBitY4MRoundTrip(clip: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = clip == "bunny" ? try Self.tenBitClip(in: folder) : try Self.pattern(clip, in: folder)
        #expect(try Self.header(of: source).contains("C420p10"))
        let output = folder.path("out.y4m")
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let input = try YUVFileInput(y4m: source)
        #expect(input.pixelFormat == .i420p10)
        let file = try FileOutput.y4m(path: output, format: .i420p10)
        input --> file
        try await input.run(on: context)
        try await file.finish()
        #expect(failures.count == 0)
        let header = try Self.header(of: output)
        #expect(header.contains("C420p10") && header.contains("XYSCSS=420P10"), "\(header)")
        let psnr = try Self.averagePSNR(output, against: source)
        print("C420p10 round trip, \(clip) 640x360: Y U V \(psnr) dB")
        #expect(psnr.allSatisfy { $0 >= 70 }, "Y U V: \(psnr) dB")
    }

    @Test("An 8-bit source into a 10-bit sink is worked on in half floats: a blurred 8-bit ramp keeps more than 256 luma codes")
    func eightBitSourceIntoTenBitSink() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (width, height) = (1024, 8)
        // A gray staircase: each 8-bit level four pixels wide.
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 { pixels[(y * width + x) * 4 + channel] = UInt8(x / 4) }
            }
        }
        let picture = try PixelBuffer(format: .rgba, width: width, height: height, data: pixels, colorSpace: .srgb)
        func distinctLumaCodes(format: PixelFormat) async throws -> Int {
            let output = folder.path("ramp-\(format).y4m")
            let context = try TestContexts.make()
            let input = RawDataInput()
            let blur = GaussianBlur(sigma: 4)
            let file = try FileOutput.y4m(path: output, format: format)
            input --> blur --> file
            try await input.process(picture, on: context)
            try await file.finish()
            let frame = try #require(try Y4MReader.readAll(path: output).first)
            let row = frame.data.prefix(width * format.bytesPerSample)
            let codes = format.bytesPerSample == 2
                ? stride(from: 0, to: row.count - 1, by: 2).map { Int(row[row.startIndex + $0]) | Int(row[row.startIndex + $0 + 1]) << 8 }
                : row.map(Int.init)
            return Set(codes).count
        }
        let deep = try await distinctLumaCodes(format: .i420p10), shallow = try await distinctLumaCodes(format: .i420)
        #expect(deep > 600, "\(deep) distinct 10-bit codes")
        #expect(shallow <= 220, "\(shallow) distinct 8-bit codes")
    }

    @Test("10-bit into MP4 at CRF 18: High 10, every plane within 0.3 dB of FFmpeg/libx264 10-bit, size <= 1.05x")
    func tenBitMP4Parity() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.tenBitClip(frames: 24, in: folder)
        let ours = folder.path("elimage.mp4"), theirs = folder.path("ffmpeg.mp4")
        var settings = EncoderSettings()
        settings.preset = .veryfast
        settings.rateControl = .constantQuality(18)
        settings.bitDepth = 10
        let input = try YUVFileInput(y4m: source)
        let summary = try await Self.record(input, run: input.run(on:), settings: settings, to: ours)
        #expect(summary.statistics.encoded == 24)
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", source, "-c:v", "libx264", "-preset", "veryfast",
                                   "-crf", "18", "-pix_fmt", "yuv420p10le", theirs])
        let stream = try EncoderFixtures.probeStream(ours)
        #expect(stream["profile"] == "High 10" && stream["pix_fmt"] == "yuv420p10le", "\(stream)")
        let mine = try Self.averagePSNR(ours, against: source), reference = try Self.averagePSNR(theirs, against: source)
        let ratio = Double(try Self.size(ours)) / Double(max(1, try Self.size(theirs)))
        print("10-bit 640x360 CRF 18: elimage Y U V \(mine) dB, FFmpeg \(reference) dB, size ratio " + String(format: "%.3f", ratio))
        for plane in 0..<3 {
            #expect(mine[plane] >= reference[plane] - 0.3, "plane \(plane): elimage \(mine) vs FFmpeg \(reference)")
        }
        #expect(ratio <= 1.05)
    }

    @Test("10 bits need a profile that has them: main with 10 bits is refused, naming the profile")
    func tenBitsNeedHigh10() throws {
        var settings = EncoderSettings()
        settings.bitDepth = 10
        settings.profile = .main
        #expect { try VideoEncoder(settings: settings) } throws: {
            "\($0)".contains("the main profile has 8-bit samples only")
        }
        settings.bitDepth = 12
        settings.profile = .high
        #expect { try VideoEncoder(settings: settings) } throws: { "\($0)".contains("bit depth 12") }
    }

    @Test("CRF 0 is lossless, which main and baseline cannot code: refused, naming the profile that can")
    func losslessNeedsHigh444() throws {
        var settings = EncoderSettings()
        settings.rateControl = .constantQuality(0)
        settings.profile = .main
        #expect { try VideoEncoder(settings: settings) } throws: {
            "\($0)".contains("CRF 0 is lossless, which the main profile cannot code") && "\($0)".contains("high444")
        }
    }

    /// A one-frame 10-bit PQ (or HLG) BT.2020 picture of the astronaut photo, its diffuse white
    /// near 640 cd/m² and highlights to 800, in HEVC with HDR10 metadata (PQ) or FFV1 (HLG).
    static func hdrPicture(hlg: Bool, in folder: TemporaryFolder) throws -> String {
        let path = folder.path(hlg ? "hlg.mkv" : "pq.mkv")
        let transfer = hlg ? "arib-std-b67" : "smpte2084"
        var arguments = ["-nostdin", "-v", "error", "-y", "-i", EncoderFixtures.astronaut, "-frames:v", "1", "-vf",
                         "scale=512:512,format=gbrpf32le,zscale=tin=iec61966-2-1:pin=bt709:rin=full:t=linear:p=bt709:npl=800,"
                            + "zscale=t=\(transfer):p=bt2020:m=bt2020nc:r=tv:npl=\(hlg ? 1000 : 800),format=yuv420p10le",
                         "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc"]
        arguments += hlg ? ["-c:v", "ffv1"] : [
            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
            "log-level=error:lossless=1:hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)"
                + "L(10000000,50):max-cll=1000,400:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc",
        ]
        _ = try runTool("ffmpeg", arguments + [path])
        return path
    }

    @Test("HDR10 into MP4: PQ and BT.2020 tagged, the mastering display and light levels kept in the container and the SEI")
    func hdrMetadataKept() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.hdrPicture(hlg: false, in: folder)
        let decoder = try MovieDecoder(path: source)
        let first = try #require(try decoder.nextFrame())
        let hdr = try #require(first.buffer.colorSpace.hdr, "the decoder read no HDR metadata")
        #expect(hdr.maximumContentLightLevel == 1000 && hdr.maximumFrameAverageLightLevel == 400)
        #expect(hdr.masteringDisplay?.maximumLuminance == 1000 && hdr.masteringDisplay?.minimumLuminance == 0.005)
        #expect(first.buffer.format == .i420p10)

        let output = folder.path("hdr.mp4")
        var settings = EncoderSettings()
        settings.bitDepth = 10
        let movie = try MovieInput(path: source)
        _ = try await Self.record(movie, run: movie.run(on:), settings: settings, to: output)
        let stream = try EncoderFixtures.probeStream(output)
        #expect(stream["color_transfer"] == "smpte2084" && stream["color_primaries"] == "bt2020"
                && stream["color_space"] == "bt2020nc" && stream["pix_fmt"] == "yuv420p10le", "\(stream)")
        let sideData = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", output]),
                              as: UTF8.self)
        #expect(sideData.contains("side_data_type=Mastering display metadata") && sideData.contains("max_luminance=10000000/10000")
                && sideData.contains("max_content=1000") && sideData.contains("max_average=400"), "\(sideData)")
        let trace = try Self.shellOutput(["ffmpeg", "-nostdin", "-i", output, "-c", "copy", "-bsf:v", "trace_headers",
                                          "-frames:v", "1", "-f", "null", "-"])
        #expect(trace.contains("max_display_mastering_luminance") && trace.contains("= 10000000"), "no mastering display SEI")
        #expect(trace.contains("max_content_light_level") && trace.contains("= 1000"), "no content light level SEI")
    }

    /// FFmpeg's usual tone mapping (zscale to linear light at 100 cd/m², Hable, back to BT.709)
    /// and libplacebo's BT.2390 (Vulkan on Mesa's lavapipe), each into a 10-bit BT.709 Y4M.
    static func references(for source: String, in folder: TemporaryFolder) throws -> (ffmpeg: String, libplacebo: String) {
        let ffmpeg = folder.path("ffmpeg.y4m"), libplacebo = folder.path("libplacebo.y4m")
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", source, "-vf",
                                   "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
                                       + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p10le", "-strict", "-1", ffmpeg])
        do {
            _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-init_hw_device", "vulkan", "-i", source, "-vf",
                                       "hwupload,libplacebo=tonemapping=bt.2390:peak_detect=0:colorspace=bt709:color_primaries=bt709"
                                           + ":color_trc=bt709:range=tv:format=yuv420p10le:dithering=-1,hwdownload,format=yuv420p10le",
                                       "-strict", "-1", libplacebo])
        } catch {
            throw ToolFailure(tool: "ffmpeg libplacebo (needs Vulkan: Mesa's lavapipe, package mesa-vulkan-drivers, which make deps installs)",
                              status: 1, message: "\(error)")
        }
        return (ffmpeg, libplacebo)
    }

    /// The mean squared error over the three planes of two Y4M files, from FFmpeg's psnr.
    static func meanSquaredError(_ a: String, _ b: String) throws -> Double {
        let psnr = try averagePSNR(a, against: b)
        // Y has four times the samples of each chroma plane.
        let errors = psnr.map { 1023.0 * 1023.0 / pow(10, $0 / 10) }
        return (4 * errors[0] + errors[1] + errors[2]) / 6
    }

    @Test("Tone mapping PQ and HLG to SDR lands between FFmpeg's and libplacebo's: no farther from either than they are from each other",
          arguments: [false, true])
    func toneMappingWithinReferences(hlg: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.hdrPicture(hlg: hlg, in: folder)
        let (ffmpeg, libplacebo) = try Self.references(for: source, in: folder)
        let ours = folder.path("elimage.y4m")
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let movie = try MovieInput(path: source)
        let toneMapping = ToneMapping()
        let file = try FileOutput.y4m(path: ours, format: .i420p10)
        movie --> toneMapping --> file
        try await movie.run(on: context)
        try await file.finish()
        #expect(failures.count == 0)
        #expect(toneMapping.statistics == ToneMapping.Statistics(mapped: 1, passedThrough: 0))
        #expect(try Self.header(of: ours).contains("XCOLORRANGE=LIMITED"))
        let spread = try Self.meanSquaredError(ffmpeg, libplacebo)
        let fromFFmpeg = try Self.meanSquaredError(ours, ffmpeg), fromLibplacebo = try Self.meanSquaredError(ours, libplacebo)
        print("tone mapping \(hlg ? "HLG" : "PQ"): MSE (10-bit) elimage-FFmpeg \(fromFFmpeg), elimage-libplacebo \(fromLibplacebo), FFmpeg-libplacebo \(spread)")
        #expect(fromFFmpeg <= spread && fromLibplacebo <= spread)
    }

    @Test("SDR frames pass through tone mapping untouched, and the recording stays tagged BT.709")
    func sdrPassesThrough() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let toneMapping = ToneMapping()
        let collector = FrameCollector()
        input --> toneMapping --> collector
        let picture = try PixelBuffer(format: .rgba, width: 8, height: 8, data: [UInt8](repeating: 100, count: 256), colorSpace: .srgb)
        try await input.process(picture, on: context)
        #expect(toneMapping.statistics == ToneMapping.Statistics(mapped: 0, passedThrough: 1))
        #expect(collector.buffers.map(\.colorSpace) == [.srgb])
        #expect(collector.received.first?.pixels == picture.data)
    }

    @Test("An HDR picture into a 16-bit PNG states PQ and BT.2020 in a cICP chunk, and reads back as PQ, which tone mapping maps")
    func hdrPNG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.hdrPicture(hlg: false, in: folder)
        let output = folder.path("hdr.png")
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let movie = try MovieInput(path: source)
        let file = try FileOutput.imageSequence(pattern: output, format: .png16)
        movie --> file
        try await movie.run(on: context)
        try await file.finish()
        #expect(failures.count == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        let chunk = try #require(bytes.firstRange(of: Array("cICP".utf8)), "no cICP chunk")
        #expect(Array(bytes[chunk.upperBound..<(chunk.upperBound + 4)]) == [9, 16, 0, 1])
        let picture = try PNGFile.readPicture(output)
        #expect(picture.format == .rgba64 && picture.colorSpace.transfer == .pq && picture.colorSpace.primaries == .bt2020)
        // Back into a graph: tone mapping sees PQ and maps it.
        let still = try StillImageInput(path: output)
        let toneMapping = ToneMapping()
        let sdr = FrameCollector()
        still --> toneMapping --> sdr
        try await still.run(on: try TestContexts.make())
        #expect(toneMapping.statistics == ToneMapping.Statistics(mapped: 1, passedThrough: 0))
        #expect(sdr.buffers.first?.colorSpace.transfer == .bt709)
    }

    @Test("A 16-bit PNG through the graph into a 16-bit PNG: samples within one half-float step, >= 70 dB")
    func sixteenBitPNG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("deep.png"), output = folder.path("out.png")
        _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", EncoderFixtures.astronaut, "-vf",
                                   "sidedata=mode=delete:type=ICC_PROFILE,scale=256:256,format=rgb48le,gblur=sigma=0.8",
                                   "-pix_fmt", "rgb48be", source])
        let still = try StillImageInput(path: source)
        #expect(still.bitsPerSample == 16 && still.deepPicture?.format == .rgba64)
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let file = try FileOutput.imageSequence(pattern: output, format: .png16)
        still --> file
        try await still.run(on: context)
        try await file.finish()
        #expect(failures.count == 0)
        let before = try StillsReference.decode16(source), after = try StillsReference.decode16(output)
        #expect(try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", output])
                    .starts(with: Data("rgb48be".utf8)))
        let worst = zip(before, after).map { abs(Int($0) - Int($1)) }.max() ?? .max
        let squared = zip(before, after).reduce(0.0) { $0 + pow(Double(Int($1.0) - Int($1.1)), 2) } / Double(before.count)
        let psnr = 10 * log10(65535.0 * 65535.0 / max(squared, 1e-9))
        #expect(worst <= 32, "largest difference \(worst) of 65535")
        #expect(psnr >= 70, "\(psnr) dB")
    }
}
