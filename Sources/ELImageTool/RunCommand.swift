import ArgumentParser
import ELImage
import ELImageCamera
import ELImageMedia
import Foundation

/// `elimage run`: INPUT → filters → OUTPUT, the framework's gst-launch.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run INPUT through filters on the GPU into OUTPUT.",
        discussion: """
            INPUT: a camera (/dev/videoN, --frames frames, 300 by default), a video file (MP4, MOV, MKV, WebM, raw .h264), a .y4m file, raw .yuv (with --size \
            and --format), or a .png/.jpg image (repeated --frames times at --fps). Without INPUT: the \
            bundled Big Buck Bunny clip. OUTPUT by extension: .y4m, .rgba (raw RGBA frames), .png or \
            .jpg (the first frame, or every frame with a %d pattern such as frame%03d.png). Without \
            --filter the input is only converted: the colour-conversion path.
            """)

    @Argument(help: "The input file.")
    var input: String?

    @Option(name: .customLong("filter"), help: "A filter as NAME or NAME:key=value,... (repeatable, applied in order).")
    var filters: [String] = []

    @Option(name: .shortAndLong, help: "The output file.")
    var output: String?

    @Option(help: "Stop after this many frames.")
    var frames: Int?

    @Option(help: "Frame size of raw input, WIDTHxHEIGHT.")
    var size: String?

    @Option(help: "Frame rate (e.g. 25 or 30000/1001) of raw input, image clips and written files.")
    var fps: String?

    @Option(help: "Pixel format of raw input: \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: String?

    @Option(help: "Override the input's colour matrix: bt601, bt709 or bt2020.")
    var matrix: String?

    @Option(help: "Override the input's range: limited or full.")
    var range: String?

    @Option(help: "Rotate clockwise by 0, 90, 180 or 270 degrees.")
    var rotate = 0

    @Flag(help: "Mirror left to right (after rotating).")
    var mirror = false

    func run() async throws {
        let options = try validatedOptions()
        let outputKind = try output.map { try OutputKind(path: $0) }
        let limit = outputKind?.wantsOneFrame == true ? 1 : frames
        let context = try RenderContext()
        context.setErrorHandler { FailureLog.shared.record($0) }
        let input = try openInput(options, limit: limit, context: context)
        let sink = try outputKind.map { try OutputSink.make($0, frameRate: options.frameRate) }
        let progress = Progress(total: input.expectedFrames.map { min($0, limit ?? .max) })
        let counter = FrameCounter { progress.update(frames: $0) }
        // One node for the chain: runs of colour filters fuse into one shader pass.
        let chain = options.filters.isEmpty ? nil : try FilterGroup(options.filters)
        let last: ImageOutput = chain ?? input.head
        if let chain { input.head.addTarget(chain) }
        if let sink { last.addTarget(sink.node) }
        last.addTarget(counter)

        try await input.run(context, counter)
        try sink?.finish()
        let count = counter.count
        progress.finish(frames: count)
        if let failure = FailureLog.shared.message { throw ToolFailure(failure) }
        if count == 0 { throw ToolFailure("\(self.input ?? "the input") gave no frames") }
        if let output { Terminal.say("wrote \(count) frame\(count == 1 ? "" : "s") to \(output)") }
    }

    struct Options {
        var frameRate: Y4MHeader.Ratio
        var orientation: Orientation
        var filters: [FilterCatalog.Filter]
        var colorOverride: ColorOverride
        var size: (width: Int, height: Int)?
        var pixelFormat: PixelFormat?
    }

    func validatedOptions() throws(UsageError) -> Options {
        guard let rotation = Orientation.Rotation(rawValue: rotate) else {
            throw UsageError("--rotate \(rotate): use 0, 90, 180 or 270")
        }
        let frameRate = try Self.parseRate(fps ?? "25")
        let matrixValue = try matrix.map { text throws(UsageError) in
            guard let value = ColorMatrix(rawValue: text.lowercased()) else {
                throw UsageError("--matrix \(text): use bt601, bt709 or bt2020")
            }
            return value
        }
        let rangeValue = try range.map { text throws(UsageError) in
            guard let value = ColorRange(rawValue: text.lowercased()) else { throw UsageError("--range \(text): use limited or full") }
            return value
        }
        let parsedSize = try size.map { text throws(UsageError) in
            let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { throw UsageError("--size \(text): write WIDTHxHEIGHT, e.g. 1280x720") }
            return (parts[0], parts[1])
        }
        let pixelFormat = try format.map { text throws(UsageError) in
            guard let value = PixelFormat(rawValue: text.lowercased()) else {
                throw UsageError("--format \(text): use one of \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return value
        }
        if let frames, frames < 1 { throw UsageError("--frames \(frames): give at least 1") }
        let catalog = FilterCatalog.standard
        var made: [FilterCatalog.Filter] = []
        for text in filters { made.append(try catalog.make(try FilterSpec(parsing: text))) }
        return Options(frameRate: frameRate, orientation: Orientation(rotation: rotation, mirrored: mirror),
                       filters: made, colorOverride: ColorOverride(matrix: matrixValue, range: rangeValue), size: parsedSize, pixelFormat: pixelFormat)
    }

    static func parseRate(_ text: String) throws(UsageError) -> Y4MHeader.Ratio {
        let parts = text.split(separator: "/").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        switch parts.count {
        case 1: if let value = parts[0], value > 0 { return Y4MHeader.Ratio(value, 1) }
        case 2: if let numerator = parts[0], let denominator = parts[1], numerator > 0, denominator > 0 {
            return Y4MHeader.Ratio(numerator, denominator)
        }
        default: break
        }
        throw UsageError("--fps \(text): write a rate such as 25 or 30000/1001")
    }

    /// The input as the head node of the graph and a way to run it to the end.
    struct Input {
        let head: ImageOutput
        let expectedFrames: Int?
        let run: (RenderContext, FrameCounter) async throws -> Void
    }

    func openInput(_ options: Options, limit: Int?, context: RenderContext) throws -> Input {
        if let device = input, device.hasPrefix("/dev/video") {
            return try camera(device, options, limit: limit, context: context)
        }
        let path = input ?? BundledMedia.path("bigbuckbunny.mp4")
        guard FileManager.default.fileExists(atPath: path) else {
            throw ToolFailure("\(path): no such file")
        }
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "y4m":
            return frames(of: try Y4MSource(path: path, colorOverride: options.colorOverride), options, limit: limit)
        case "yuv", "raw", "nv12", "rgb":
            guard let size = options.size, let pixelFormat = options.pixelFormat else {
                throw UsageError("raw input \(path) needs --size WIDTHxHEIGHT and --format FORMAT")
            }
            return frames(of: try RawSource(path: path, width: size.width, height: size.height, format: pixelFormat,
                                            frameRate: options.frameRate, colorOverride: options.colorOverride),
                          options, limit: limit)
        case "png", "jpg", "jpeg":
            let still = try StillImageInput(path: path, options: .init(
                repeatCount: limit ?? 1, frameRate: options.frameRate, orientation: options.orientation))
            return Input(head: still, expectedFrames: limit ?? 1, run: { context, _ in try await still.run(on: context) })
        default:
            let probe = try MovieInput(path: path)
            let colorSpace = options.colorOverride.isEmpty ? nil : options.colorOverride.apply(to: probe.colorSpace)
            let movie = try MovieInput(path: path, options: .init(
                frameRange: limit.map { 0..<$0 }, colorSpace: colorSpace, orientation: options.orientation))
            let expected = movie.info.frameCount.map { min($0, limit ?? .max) }
            return Input(head: movie, expectedFrames: expected, run: { context, _ in try await movie.run(on: context) })
        }
    }

    /// A V4L2 camera, captured until --frames frames went through (or it stops).
    private func camera(_ path: String, _ options: Options, limit: Int?, context: RenderContext) throws -> Input {
        var settings = CaptureSettings(options.size.map { _ in .hd720 } ?? .hd720,
                                       framesPerSecond: fps.map { _ in Double(options.frameRate.numerator) / Double(options.frameRate.denominator) })
        if let size = options.size { settings.width = size.width; settings.height = size.height }
        settings.orientation = options.orientation
        let camera = Camera(device: path, settings: settings, context: context)
        let wanted = limit ?? 300
        return Input(head: camera, expectedFrames: wanted, run: { _, counter in
            try camera.start()
            Terminal.say("capturing \(camera.mode.map { "\($0)" } ?? "") from \(path)")
            while camera.isRunning, counter.count < wanted {
                try await Task.sleep(for: .milliseconds(10))
            }
            camera.stop()
        })
    }

    /// A CPU frame reader driven through `RawDataInput`.
    private func frames(of source: FrameSource, _ options: Options, limit: Int?) -> Input {
        let upload = RawDataInput()
        let orientation = options.orientation
        return Input(head: upload, expectedFrames: source.expectedFrames.map { min($0, limit ?? .max) }, run: { context, _ in
            var count = 0
            while count < (limit ?? .max), let frame = try source.nextFrame() {
                try await upload.process(frame, orientation: orientation, on: context)
                count += 1
                if let failure = FailureLog.shared.message { throw ToolFailure(failure) }
            }
            await context.perform { context in upload.finish(in: context) }
        })
    }
}

/// A failure while running: exit code 1.
struct ToolFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The media bundled with the repository (the default input).
enum BundledMedia {
    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Media/\(name)").path
    }
}
