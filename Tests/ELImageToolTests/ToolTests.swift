import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

@Suite("elimage tool", .closesContexts)
struct ToolTests {
    let elimage = BuiltProgram(name: "elimage")

    /// A 5-frame Y4M clip made by ffmpeg.
    func clip(in folder: TemporaryFolder, frames: Int = 5) throws -> String {
        let path = folder.path("clip.y4m")
        try writeTestPattern(to: path, frames: frames)
        return path
    }

    @Test("The binary is built next to the tests")
    func exists() {
        #expect(FileManager.default.isExecutableFile(atPath: elimage.url.path), "\(elimage.url.path)")
    }

    @Test("Y4M → grayscale → Y4M: ffmpeg reads every frame back, gray")
    func y4mToY4M() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("gray.y4m")
        let result = try await elimage.run(["run", try clip(in: folder), "--filter", "grayscale", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("wrote 5 frames"))
        let frames = try Y4MReader.readAll(path: output)
        #expect(frames.count == 5)
        // Gray: chroma sits at 128 (±1) everywhere.
        let chroma = frames[2].data[(96 * 64)...]
        #expect(chroma.allSatisfy { abs(Int($0) - 128) <= 1 })
        let probe = String(decoding: try runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                             "stream=nb_read_frames,width,height", "-of", "csv=p=0", output]), as: UTF8.self)
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "96,64,5")
    }

    @Test("Raw YUV in (with --size/--format), raw RGBA out: the library's conversion, byte for byte")
    func rawToRGBA() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let raw = folder.path("clip.yuv")
        try runTool("ffmpeg", ["-v", "error", "-i", try clip(in: folder, frames: 3), "-f", "rawvideo", "-pix_fmt", "nv12", raw])
        let output = folder.path("frames.rgba")
        let result = try await elimage.run(["run", raw, "--size", "96x64", "--format", "nv12", "--matrix", "bt601",
                                      "--range", "limited", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(bytes.count == 3 * 96 * 64 * 4)
        // The colour path itself is checked against swscale in the colour suites; here the tool must
        // hand the same frames, with the forced colour space, to the same conversion.
        let frames = try RawYUVReader.readAll(path: raw, width: 96, height: 64, format: .nv12, frameRate: 25)
        let context = try TestContexts.make()
        var expected: [UInt8] = []
        for var frame in frames {
            frame.colorSpace = ColorSpace(matrix: .bt601, range: .limited)
            expected += try await convertOnGPU(frame, context: context).pixels
        }
        #expect([UInt8](bytes) == expected)
    }

    @Test("PNG in, PNG out (one frame, and a %d pattern for several), rotated")
    func pngOutputs() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let single = folder.path("one.png")
        var result = try await elimage.run(["run", Repository.path("Examples/Media/astronaut.png"), "--rotate", "90", "-o", single])
        #expect(result.status == 0, "\(result.errors)")
        let image = try PNGFile.read(single)
        #expect(image.width == 512 && image.height == 512)
        let pattern = folder.path("frame%02d.png")
        result = try await elimage.run(["run", try clip(in: folder, frames: 3), "--filter", "scale:width=48,height=32", "-o", pattern])
        #expect(result.status == 0, "\(result.errors)")
        for index in 0..<3 {
            let frame = try PNGFile.read(folder.path(String(format: "frame%02d.png", index)))
            #expect(frame.width == 48 && frame.height == 32)
        }
    }

    @Test("A video file in, rotated, a frame limit; a JPEG in and out")
    func movieAndJPEG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("turned.y4m")
        var result = try await elimage.run(["run", Repository.path("Examples/Media/bigbuckbunny.mp4"), "--frames", "4",
                                      "--rotate", "90", "--filter", "grayscale", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let probe = String(decoding: try runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                             "stream=nb_read_frames,width,height", "-of", "csv=p=0", output]), as: UTF8.self)
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "720,1280,4")
        let jpeg = folder.path("portrait.jpg")
        result = try await elimage.run(["run", Repository.path("Examples/Media/grace_hopper.jpg"), "-o", jpeg])
        #expect(result.status == 0, "\(result.errors)")
        let decoded = try JPEGFile.read(jpeg)
        #expect(decoded.width == 512 && decoded.height == 600)
    }

    @Test("MP4 and raw H.264 out, with encoder options: ffprobe counts the frames")
    func videoOutputs() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (name, options) in [("clip.mp4", ["--preset", "ultrafast", "--crf", "20", "--keyint", "10"]),
                                ("clip.h264", ["--bitrate", "800"])] {
            let output = folder.path(name)
            let result = try await elimage.run(["run", try clip(in: folder, frames: 12), "--filter", "grayscale"] + options + ["-o", output])
            #expect(result.status == 0, "\(name): \(result.errors)")
            let probe = String(decoding: try runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                                 "stream=codec_name,nb_read_frames", "-of", "csv=p=0", output]), as: UTF8.self)
            #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,12", "\(name)")
        }
    }

    @Test("Usage errors exit 2 with one line naming the problem", arguments: [
        (["run", "--filter", "grayscale:strength=2"], "no parameter 'strength'"),
        (["run", "--filter", "nosuchfilter"], "unknown filter 'nosuchfilter'"),
        (["run", "--filter", "scale:width=abc"], "'width' has value 'abc'"),
        (["run", "--filter", "scale:width"], "'width' has no value"),
        (["run", "--filter", "beauty=0.5"], "'beauty=VALUE' is for a filter with one parameter (it has 6: strength, smoothing"),
        (["run", "--filter", "grayscale=1"], "'grayscale=VALUE' is for a filter with one parameter (it takes none)"),
        (["run", "--filter", "saturation=lots"], "the value 'lots' is not a number"),
        (["run", "--filter", "saturation=9"], "saturation=9.0 is outside 0.0...4.0"),
        (["run", "--rotate", "45"], "'45' is invalid for '--rotate <rotate>'. Please provide one of '0', '90', '180' or '270'"),
        (["run", "--matrix", "bt999"], "'bt999' is invalid for '--matrix <matrix>'. Please provide one of 'bt601', 'bt709' or 'bt2020'"),
        (["run", "--no-such-option"], "--no-such-option"),
        (["run", "x.yuv"], "needs --size"),
        (["run", "--preset", "fastest"], "'fastest' is invalid for '--preset <preset>'. Please provide one of the following: ultrafast, superfast,"),
        (["run", "--chroma-filter", "sharp"], "Please provide one of 'average' and 'matched'"),
        (["run", "--crf", "60"], "--crf 60.0"),
        (["run", "--frames", "-3"], "--frames -3: must be a positive number"),
        (["run", "--frames", "0", "-o", "out.y4m"], "--frames 0: must be a positive number"),
        (["run", "--keyint", "-1"], "--keyint -1: must be a positive number"),
        (["run", "--bitrate", "-500"], "--bitrate -500: must be a positive number"),
        (["run", "--detect-every", "-2", "--detect", "faces"], "--detect-every -2: must be a positive number"),
        (["run", "--detect-rate", "-5", "--detect", "faces"], "--detect-rate -5.0: must be a positive number"),
        // Numbers past what the encoder, the clock or the disk take: refused, never a trap.
        (["run", "missing.mp4", "--keyint", "3000000000", "-o", "out.mp4"], "--keyint 3000000000: give 1...1073741824 frames"),
        (["run", "missing.mp4", "--bitrate", "9999999999999", "-o", "out.mp4"], "--bitrate 9999999999999: give 1...10000000 kbit/s"),
        (["run", "missing.mp4", "--maxrate", "9999999999999", "-o", "rtmp://127.0.0.1/live/key"], "--maxrate 9999999999999: give 1...10000000 kbit/s"),
        (["run", "missing.mp4", "--pre-record", "99999999999999999999h", "-o", "out.mp4"], "--pre-record 99999999999999999999h: durations go up to 100000h"),
        (["run", "missing.mp4", "--segment", "99999999999999999999GB", "-o", "out.mp4"], "--segment 99999999999999999999GB: give a size from 16KiB to 16TiB"),
        (["run", "missing.mp4", "--segment", "0.4ms", "-o", "out.mp4"], "--segment 0.4ms: give at least 1ms"),
        (["run", "missing.mp4", "--motion-hold", "99999999999999999999h", "--detect", "motion", "-o", "out.y4m"], "--motion-hold 99999999999999999999h: durations go up to 100000h"),
        (["run", "missing.mp4", "--reconnect-for", "99999999999999999999h", "-o", "rtmp://127.0.0.1/live/key"], "--reconnect-for 99999999999999999999h: durations go up to 100000h"),
        (["run", "missing.mp4", "--hls-list-size", "99999999999999", "-o", "hls/index.m3u8"], "--hls-list-size 99999999999999: use 0 (keep all) to 2147483647"),
        (["run", "missing.mp4", "--fps", "2147483647", "-o", "out.y4m"], "--fps 2147483647: write a rate up to 1000"),
        // A size is WIDTHxHEIGHT and nothing else: a doubled or a trailing x, a sign, a side past 16384.
        (["run", "missing.mp4", "--size", "1280xx720", "-o", "out.y4m"], "--size 1280xx720: write WIDTHxHEIGHT, each side 1...16384, e.g. 1280x720"),
        (["run", "missing.mp4", "--size", "1280x720x", "-o", "out.y4m"], "--size 1280x720x: write WIDTHxHEIGHT"),
        (["run", "missing.mp4", "--size", "x1280x720", "-o", "out.y4m"], "--size x1280x720: write WIDTHxHEIGHT"),
        (["run", "missing.mp4", "--size", "+1280x720", "-o", "out.y4m"], "--size +1280x720: write WIDTHxHEIGHT"),
        (["run", "missing.mp4", "--size", "99999x720", "-o", "out.y4m"], "--size 99999x720: write WIDTHxHEIGHT, each side 1...16384"),
        (["run", "missing.mp4", "--motion-area", "inf", "--detect", "motion", "-o", "out.y4m"], "--motion-area inf: give a fraction of the picture in (0, 1]"),
        (["run", "missing.mp4", "--max-pixels", "0", "-o", "out.y4m"], "--max-pixels 0: give 1...268435456 pixels"),
        (["run", "missing.mp4", "--max-allocation", "1MiB", "-o", "out.y4m"], "--max-allocation 1MiB: give a size from 16MiB to 64GiB"),
        (["run", "missing.mp4", "--max-allocation", "lots", "-o", "out.y4m"], "--max-allocation lots: give a size such as 2GiB"),
        (["run", "missing.mp4", "-o", "live%d/index.m3u8"], "-o live%d/index.m3u8: libavformat's HLS muxer reads '%' in the path as a segment number pattern"),
        (["run", "x.yuv", "--size", "96x64", "--format", "i420", "--gop", "100000000", "-o", "out.mp4"], "--gop 100000000: at 25/1 fps that is 2500000000 frames, over the 1073741824"),
        // No output at all: refused before the (here missing) input is opened.
        (["run", "missing.mp4", "--filter", "beauty"], "no output: give one with -o, e.g. -o out.mp4"),
        (["run", "missing.mp4", "-o", "name"], "-o name: the file name has no extension"),
        (["run", "missing.mp4", "-o", "name"], "use .mp4, .mov, .h264, .mkv, .webm, .y4m, .rgba, .png, .jpg, .gif or .webp"),
        (["run", "missing.mp4", "-o", "out.avi"], "cannot write '.avi' files (out.avi); use .mp4, .mov, .h264"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder.path("x.yuv")))
        let result = try await elimage.run(arguments.map { $0 == "x.yuv" ? folder.path("x.yuv") : $0 })
        #expect(result.status == 2, "\(arguments): \(result.errors)")
        #expect(result.errors.contains(message), "\(result.errors)")
        #expect(result.errors.split(separator: "\n").count == 1)
    }

    @Test("An output that is the input (same path, a symbolic link, a hard link) is refused; the input is untouched",
          arguments: ["same", "symlink", "hardlink"])
    func outputIsInput(how: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try clip(in: folder, frames: 3)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        var output = input
        if how == "symlink" {
            output = folder.path("link.y4m")
            try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: input)
        } else if how == "hardlink" {
            output = folder.path("hard.y4m")
            try FileManager.default.linkItem(atPath: input, toPath: output)
        }
        let result = try await elimage.run(["run", input, "--filter", "grayscale", "-o", output])
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors.contains("is the input file"), "\(result.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before, "the input is byte-identical")
    }

    @Test("Outputs named as the run goes never replace the input: --metadata, a --segment file, a numbered picture",
          arguments: ["metadata", "segment", "pattern"])
    func namedOutputsSpareTheInput(kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input: String, arguments: [String], expected: (status: Int32, words: String)
        switch kind {
        case "metadata":
            input = try clip(in: folder, frames: 3)
            arguments = ["--detect", "motion", "--metadata", input, "-o", folder.path("out.y4m")]
            expected = (2, "--metadata \(input) is the input file")
        case "segment":  // the first segment of out.mp4 is out-00001.mp4
            input = folder.path("out-00001.mp4")
            try writeTestPattern(to: input, frames: 50)
            arguments = ["-o", folder.path("out.mp4"), "--segment", "1s"]
            expected = (1, "out-00001.mp4 is an input of this run")
        default:  // the first picture of frame%03d.png is frame000.png
            input = folder.path("frame000.png")
            try writeTestPattern(to: input, frames: 1)
            arguments = ["--frames", "3", "-o", folder.path("frame%03d.png")]
            expected = (1, "frame000.png is an input of this run")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        let result = try await elimage.run(["run", input] + arguments)
        #expect(result.status == expected.status && result.errors.contains(expected.words), "\(result.status): \(result.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before, "the input is byte-identical")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".partial") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("A truncated input: exit 1, and the MP4 and Y4M outputs keep every frame decoded before the cut",
          arguments: ["mp4", "y4m"])
    func truncatedInputKeepsFrames(kind: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try clip(in: folder, frames: 5)))
        // The header line, then frames of "FRAME\n" + 96x64 I420: cut in the middle of frame 3.
        let header = (whole.firstIndex(of: 0x0A) ?? 0) + 1
        let frameBytes = 6 + 96 * 64 * 3 / 2
        let cut = folder.path("cut.y4m")
        try whole.prefix(header + 3 * frameBytes + frameBytes / 2).write(to: URL(fileURLWithPath: cut))
        let output = folder.path("kept.\(kind)")
        let result = try await elimage.run(["run", cut, "-o", output])
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.contains("frame 3"), "\(result.errors)")
        #expect(try EncoderFixtures.decodedFrameCount(output) == 3)
    }

    @Test("Runtime failures exit 1 with one line: a missing file, a truncated Y4M")
    func runtimeErrors() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var result = try await elimage.run(["run", folder.path("missing.y4m"), "-o", folder.path("out.y4m")])
        #expect(result.status == 1)
        #expect(result.errors.contains("missing.y4m"))
        let clipPath = try clip(in: folder)
        let data = try Data(contentsOf: URL(fileURLWithPath: clipPath))
        let truncated = folder.path("truncated.y4m")
        try data.prefix(data.count - 100).write(to: URL(fileURLWithPath: truncated))
        result = try await elimage.run(["run", truncated, "-o", folder.path("out.y4m")])
        #expect(result.status == 1)
        #expect(result.errors.contains("frame 4"), "\(result.errors)")
        #expect(result.errors.split(separator: "\n").count == 1)
    }

    @Test("Camera commands: devices lists (or says there are none), controls of a missing device exits 1")
    func cameraCommands() async throws {
        let devices = try await elimage.run(["devices"])
        #expect(devices.status == 0)
        #expect(!devices.output.isEmpty)
        let controls = try await elimage.run(["controls", "/dev/video-does-not-exist"])
        #expect(controls.status == 1)
        #expect(controls.errors.contains("/dev/video-does-not-exist"))
        #expect(controls.errors.contains("list cameras with `elimage devices`"), "\(controls.errors)")
        #expect(!controls.errors.contains("camera-devices"), "\(controls.errors)")
    }

    @Test("Several colour filters and the beauty filter chain in one run; beauty:mask=1 shows the skin mask")
    func filterChain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("chain.png")
        var result = try await elimage.run(["run", Repository.path("Examples/Media/astronaut.png"), "--filter", "brightness:brightness=0.1",
                                      "--filter", "saturation:saturation=0", "--filter", "beauty:strength=0.5", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let image = try PNGFile.read(output)
        // Saturation 0 before the beauty filter: gray in, nearly gray out (whitening keeps hue).
        let pixel = image[256, 300]
        #expect(abs(Int(pixel.x) - Int(pixel.z)) <= 3)

        // beauty:mask=1 writes the skin mask: white on the cheek, black on the sky.
        result = try await elimage.run(["run", Repository.path("Examples/Media/grace_hopper.jpg"), "--filter", "beauty:mask=1", "-y", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let mask = try PNGFile.read(output)
        #expect(mask[200, 248].x >= 200 && mask[460, 200].x <= 30, "cheek \(mask[200, 248]), sky \(mask[460, 200])")
    }

    @Test("NAME=VALUE sets a one-parameter filter's parameter: the same picture as NAME:PARAMETER=VALUE")
    func oneParameterShorthand() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let astronaut = Repository.path("Examples/Media/astronaut.png")
        for (short, long) in [("saturation=0.3", "saturation:saturation=0.3"), ("hue=40", "hue:degrees=40"),
                              ("blur=1.5", "blur:sigma=1.5")] {
            let outputs = [folder.path("short.png"), folder.path("long.png"), folder.path("none.png")]
            for (filter, output) in [(short, outputs[0]), (long, outputs[1])] {
                let result = try await elimage.run(["run", astronaut, "--filter", filter, "-y", "-o", output])
                #expect(result.status == 0, "\(filter): \(result.errors)")
            }
            let result = try await elimage.run(["run", astronaut, "-y", "-o", outputs[2]])
            #expect(result.status == 0, "\(result.errors)")
            let (shortImage, longImage, unfiltered) = (try PNGFile.read(outputs[0]), try PNGFile.read(outputs[1]), try PNGFile.read(outputs[2]))
            #expect(shortImage.pixels == longImage.pixels, "\(short) differs from \(long)")
            #expect(shortImage.pixels != unfiltered.pixels, "\(short) did nothing")
        }
    }

    @Test("`elimage filters` lists the filters with their parameter ranges")
    func filterListing() async throws {
        let result = try await elimage.run(["filters"])
        #expect(result.status == 0)
        #expect(result.output.contains("grayscale"))
        #expect(result.output.contains("width=0...16384"))
    }

    @Test("The documentation's filter reference is the page `elimage filters --markdown` makes from the catalogue")
    func filterReferencePage() async throws {
        let result = try await elimage.run(["filters", "--markdown"])
        #expect(result.status == 0, "\(result.errors)")
        for entry in FilterCatalog.standard.entries {
            #expect(result.output.contains("### \(entry.name)\n"), "no section for \(entry.name)")
            for parameter in entry.parameters {
                #expect(result.output.contains("| `\(parameter.name)` |"), "\(entry.name): no row for \(parameter.name)")
            }
        }
        #expect(result.output.contains("| `sigma` | 0 … 32 | 2 | pixels |"), "\(result.output)")
        let page = try String(contentsOfFile: Repository.path("Sources/ELImage/ELImage.docc/FilterReference.md"), encoding: .utf8)
        #expect(page == result.output, "FilterReference.md differs from the catalogue: run `make filters-doc` and review the change")
    }
}

extension ToolTests {
    @Test("ELIMAGE_DUMP_SHADERS writes the shaders a run compiles, the fused colour chain included")
    func shaderDump() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try self.clip(in: folder, frames: 2)
        let dump = folder.path("shaders")
        let result = try await elimage.run(
            ["run", clip, "--filter", "brightness:brightness=0.1", "--filter", "contrast:contrast=1.2", "-o", folder.path("out.y4m")],
            environment: ["ELIMAGE_DUMP_SHADERS": dump])
        #expect(result.status == 0, "\(result.errors)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dump)
        // The CLI's Y4M → colour chain → Y4M graph fuses: conversion, chain, Y' and the chroma
        // averages in one generated pass (pack_420.fsh's first), then both chroma planes.
        let chain = try #require(names.first { $0.hasPrefix("yuv_fused[brightness,contrast]") }, "\(names)")
        let source = try String(contentsOfFile: (dump as NSString).appendingPathComponent(chain), encoding: .utf8)
        #expect(source.contains("brightness") && source.contains("contrast"), "\(source)")
        #expect(source.contains("// pack_420.fsh") && source.contains("#define PACK_PASS 1"), "\(source)")
        #expect(names.contains { $0.hasPrefix("pack_420[") && $0.contains("PACK_PASS=2") }, "\(names)")
        #expect(!names.contains { $0.hasPrefix("rgba_to_yuv[") }, "no separate RGBA → Y'CbCr pass: \(names)")
    }
}
