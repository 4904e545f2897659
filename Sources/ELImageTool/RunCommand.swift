import ArgumentParser
import ELImage
import ELImageCommandLine
import ELImageKit
import ELImageMedia
import ELImagePreview
import Foundation
import UnixSignals

/// `elimage run`: INPUT → filters → OUTPUT, the framework's gst-launch.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run INPUT through filters on the GPU into OUTPUT.",
        discussion: """
            INPUT: a camera (/dev/videoN, --frames frames, 300 by default), a video file (MP4, MOV, MKV, WebM, raw .h264), a .y4m file, raw .yuv (with --size \
            and --format), or a .png/.jpg image (repeated --frames times at --fps). INPUT may also be given as -i INPUT, as \
            ffmpeg takes it. OUTPUT by extension: .mp4 (fragmented, crash-safe) and .h264 \
            (x264), .mkv and .webm (--codec h264, vp9 or av1; .webm's sound is Opus), .gif and .webp (animated), .y4m, .rgba \
            (raw RGBA frames), .png or .jpg (the first frame, or every frame with a %d pattern such as frame%03d.png); \
            or a live stream: \
            rtmp:// and rtmps:// (FLV), srt:// (MPEG-TS), DIR/index.m3u8 (HLS), a file input paced in real time; or a virtual \
            camera: /dev/videoN, a v4l2loopback device that video calls and browsers open as a webcam (`elimage devices` \
            lists them), written in the format and size its driver answers. Without \
            --filter the input is only converted: the colour-conversion path. Movies with a rotation \
            tag (display matrix) and JPEGs with an EXIF Orientation are turned upright, as FFmpeg \
            does, and written without a tag; --rotate and --mirror come after that turn, and \
            --no-autorotate takes the input as stored.
            """)

    @Argument(help: ArgumentHelp("The input: a file, or a camera (/dev/videoN).", valueName: "input"))
    var inputArgument: String?

    @Option(name: .customShort("i"), help: ArgumentHelp("The input, as ffmpeg's -i takes it (the same as INPUT).", valueName: "input"))
    var inputOption: String?

    /// INPUT or -i INPUT.
    var input: String? { inputArgument ?? inputOption }

    @Option(name: [.customLong("start"), .customLong("ss", withSingleDash: true)], help: ArgumentHelp(
        "Begin at this time of a movie, Y4M or raw file: [HH:]MM:SS[.mmm] or seconds (90, 2.5s), as ffmpeg's -ss.",
        discussion: "The output begins with the first frame at or after it, and its sound from that frame on.",
        valueName: "time"))
    var start: String?

    @Option(name: [.customLong("duration"), .customShort("t")], help: ArgumentHelp(
        "Read this much time of the input: [HH:]MM:SS[.mmm] or seconds (10, 500ms), as ffmpeg's -t.",
        discussion: "The output holds the frames that begin within it (a camera or a picture: that many frames at its rate), and the sound as long as they last. With --frames too, whichever ends first.",
        valueName: "time"))
    var duration: String?

    @Flag(name: [.customShort("y"), .customLong("overwrite")],
          help: "Replace output files that exist (without it, an existing output is refused before anything runs).")
    var overwrite = false

    @Option(name: .customLong("filter"), help: "A filter as NAME, NAME:key=value,... or NAME=value for a one-parameter filter (repeatable, applied in order).")
    var filters: [String] = []

    @Option(name: .shortAndLong, help: "The output file.")
    var output: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp(
        "FFmpeg's own messages on standard error, each line after 'ffmpeg: ' with stream addresses redacted (default quiet: ELImage's errors say what failed).",
        valueName: "quiet|error|warning|info|verbose|debug"))
    var logLevel: FFmpegLog.Level = .quiet

    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: ArgumentHelp(
        "The most pixels one input picture may have (default \(InputLimits.standard.maximumPixels), 8192x8192); larger ones are refused before they are decoded.",
        valueName: "PIXELS"))
    var maxPixels: Int?

    @Option(name: .customLong("max-allocation"), help: ArgumentHelp(
        "The largest single block of memory FFmpeg may allocate while it reads input (default 512MiB); a damaged header asking for more is refused.",
        valueName: "SIZE"))
    var maxAllocation: String?

    @Option(help: "The new background of --filter backgroundreplace: a PNG or JPEG picture (it fills the frame, centred).")
    var background: String?

    // `.unconditional`: `--frames -3` reaches validate() (which names the problem) instead of being
    // taken for an option, which left "--frames" without a value.
    @Option(parsing: .unconditional, help: "Stop after this many frames.")
    var frames: Int?

    @Option(help: "Frame size of raw input, WIDTHxHEIGHT.")
    var size: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Frame rate N or N/D (e.g. 25 or 30000/1001) of raw input and image clips, and of .y4m and .h264 outputs.",
        discussion: """
            .y4m and .h264 files have one constant rate: --fps, else the input's own (a Y4M header's, the \
            rate FFmpeg guesses for a movie: its base rate, as ffmpeg picks it; a camera's capture rate, \
            30), else 25. Frames are put \
            on that rate's grid like ffmpeg -fps_mode cfr: the frame before a gap is repeated, a frame \
            that another one replaces within one frame's time is dropped; the summary says how many. \
            .mp4 keeps every frame at its own timestamp (variable rates stay variable).
            """))
    var fps: String?

    @Option(help: "Pixel format of raw input.")
    var format: PixelFormat?

    @Option(help: "Override the input's colour matrix.")
    var matrix: ColorMatrix?

    @Option(help: "Override the input's range.")
    var range: ColorRange?

    @Option(help: "Rotate clockwise by this many degrees (after the input's own orientation).")
    var rotate = Orientation.Rotation.none

    @Flag(name: .customLong("no-autorotate"),
          help: "Take movies and JPEGs as stored: ignore their rotation tag (display matrix) and EXIF Orientation.")
    var noAutorotate = false

    @Flag(help: "Mirror left to right (after rotating).")
    var mirror = false

    @Option(help: ArgumentHelp(
        "Video codec of .mkv and .webm outputs: h264 (.mkv's default), vp9 (.webm's default) or av1.",
        discussion: "They are written through FFmpeg's encoders at constant quality (--crf; defaults: 23 for h264, 31 for vp9, 35 for av1); .gif and .webp are animated GIF and WebP. .mkv and .webm keep the sound as .mp4 does (copied when the container holds its codec, else encoded: Opus for .webm, AAC for .mkv); .gif and .webp hold none."))
    var codec: VideoCodec?

    @Option(help: "x264 preset for .mp4/.h264.")
    var preset: EncoderSettings.Preset?

    @Option(parsing: .unconditional, help: "Constant rate factor: x264's 0...51 (default 23; lower is better; 0 is lossless, at 8 and 10 bits), VP9's and AV1's 0...63 (.mkv, .webm), WebP's quality 0...100 (higher is better).")
    var crf: Double?

    @Option(parsing: .unconditional, help: "Target bitrate in kbit/s instead of --crf.")
    var bitrate: Int?

    @Option(parsing: .unconditional, help: "Keyframe interval in frames.")
    var keyint: Int?

    @Option(help: ArgumentHelp(
        "Chroma filter for .mp4/.h264 (matched: default; average: fastest).",
        discussion: "matched undoes the blur of the trip through RGBA, so Cb/Cr stay as close to the source as FFmpeg's; average blurs them. The chroma keeps the input's siting (C420jpeg, JPEG: centred) and the stream is tagged so."))
    var chromaFilter: ChromaDownsampling?

    @Option(name: .customLong("output-depth"), parsing: .unconditional, help: ArgumentHelp(
        "Bits a sample of .mp4/.h264/.y4m/.png outputs: 8, or 10 (High 10 H.264, C420p10 Y4M, 16-bit PNG).",
        discussion: "Default: 10 for an input of more than 8 bits (10-bit video, 16-bit PNG), which the graph works on in half floats; 8 otherwise. Live streams stay at 8 bits unless told.",
        valueName: "bits"))
    var outputDepth: Int?

    @Option(help: ArgumentHelp(
        "Split a .mp4/.h264 recording into files of this duration or size (10m, 30s, 50MB), each starting with a keyframe.",
        discussion: "-o is then a pattern: strftime conversions at each file's first frame (-o 'cam-%Y%m%d-%H%M%S.mp4'), or a plain name that gets each file's number (out.mp4: out-00001.mp4, out-00002.mp4, ...). No frame is lost or repeated across files.",
        valueName: "length"))
    var segment: String?

    @Option(name: .customLong("segment-keep"), parsing: .unconditional,
            help: "Loop recording: keep only the newest N files of --segment, deleting older ones as new ones complete.")
    var segmentKeep: Int?

    @Option(name: .customLong("pre-record"), help: ArgumentHelp(
        "Pre-record: keep this much (5s, 1m) of a .mp4/.h264 recording in memory and write nothing until SIGUSR1; the file then starts that long before the signal.",
        discussion: "kill -USR1 <pid> triggers it (a second signal does nothing). While it waits every frame is encoded as a keyframe, so the file starts to the frame. A run that ends without the signal writes nothing and says so.",
        valueName: "duration"))
    var preRecord: String?

    @OptionGroup(title: "Detection") var detection: DetectionOptions

    @OptionGroup(title: "Sound") var audio: AudioOptions

    @OptionGroup(title: "Live streaming (-o rtmp://HOST/APP/KEY, srt://HOST:PORT, DIR/index.m3u8)") var streaming: StreamOptions

    @OptionGroup(title: "Virtual camera (-o /dev/videoN, a v4l2loopback device)") var virtualCamera: VirtualCameraOptions

    @Flag(help: "Show the output in a window (X11 or Wayland) while it runs: q, Escape or closing it stops, space pauses a file, f is fullscreen.")
    var preview = false

    @Flag(help: ArgumentHelp(
        "Print the graph's plan at the first frame: the nodes, their passes, what is fused (or why not), the threads.",
        discussion: "The run goes on as usual; add --frames 1 to see the plan alone."))
    var explain = false

    /// The numbers that must be positive, and those the encoder bounds, checked before anything runs.
    func validate() throws {
        if let inputArgument, let inputOption {
            throw ValidationError("two inputs, \(inputArgument) and -i \(inputOption): give one (elimage run reads one input)")
        }
        for (name, value) in [("--frames", frames), ("--bitrate", bitrate), ("--keyint", keyint), ("--segment-keep", segmentKeep)] {
            if let value, value < 1 {
                throw ValidationError("\(name) \(value): must be a positive number, e.g. \(name) 100")
            }
        }
        if let bitrate, !EncoderSettings.kilobitRange.contains(bitrate) {
            throw ValidationError("--bitrate \(bitrate): give \(EncoderSettings.kilobitRange) kbit/s, e.g. --bitrate 2500")
        }
        if let keyint, !EncoderSettings.keyframeIntervalRange.contains(keyint) {
            throw ValidationError("--keyint \(keyint): give \(EncoderSettings.keyframeIntervalRange) frames, e.g. --keyint 250")
        }
        if let maxPixels, !InputLimits.pixelRange.contains(maxPixels) {
            throw ValidationError("--max-pixels \(maxPixels): give \(InputLimits.pixelRange) pixels, e.g. --max-pixels \(16384 * 16384)")
        }
    }

    /// The input limits the options give.
    func inputLimits() throws(UsageError) -> InputLimits {
        var limits = InputLimits.standard
        if let maxPixels { limits.maximumPixels = maxPixels }
        if let maxAllocation {
            let range = Int64(InputLimits.allocationRange.lowerBound)...Int64(InputLimits.allocationRange.upperBound)
            limits.maximumAllocationBytes = Int(try ByteSizeArgument.parse(maxAllocation, option: "--max-allocation", range: range, example: "2GiB"))
        }
        return limits
    }

    func run() async throws {
        FFmpegLog.route(logLevel) { _, line in FileHandle.standardError.write(Data("ffmpeg: \(line)\n".utf8)) }
        let options = try validatedOptions()
        try InputLimits.apply(try inputLimits())
        try requireOutput()
        try requireInput()
        let outputKind = try output.map { output throws(UsageError) in
            try OutputKind(path: try streaming.address(output), hlsSegments: streaming.hlsType ?? .mpegts)
        }
        try streaming.checkUsage(output: outputKind)
        try virtualCamera.checkUsage(output: outputKind)
        if let input {
            for (option, path) in [("-o", output), ("--record", streaming.record), ("--metadata", detection.metadata)] {
                if let path { try Self.refuseOverwriting(input: input, with: path, option: option) }
            }
            // Outputs named as the run goes (segments, numbered pictures) are checked when made.
            StagedOutputFile.protect(input)
        }
        if !overwrite {
            try refuseExistingOutputs(outputKind)
            // Files named as the run goes (segments, numbered pictures): refused, as each is made, where one exists.
            StagedOutputFile.keepExistingFiles(hint: "add -y to replace it, or choose another name")
        }
        if let background { StagedOutputFile.protect(background) }
        // A stream or a virtual camera runs until the input ends or Ctrl-C (a camera's 300 frames are for files).
        let limit = outputKind?.wantsOneFrame == true ? 1 : frames ?? (isLive ? Int.max : nil)
        let (context, previewDisplay) = try PreviewOutput.makeContext(preview: preview)
        // The record of what failed: the context's events, where each failure comes once, with its
        // node. What `run(on:)` and `finish()` throw is one of those failures (or an output's
        // complaint about getting nothing): each failure is said once, in the message below.
        let failures = EventLog()
        let events = context.events
        let log = Task { await failures.record(events) }
        // Whatever happens below, the context is closed before this returns: sources stopped, the
        // output finished, every thread joined. Only then may the process exit.
        let run: RunOutcome
        do {
            run = try await runGraph(options, output: outputKind, limit: limit, context: context, preview: previewDisplay,
                                     events: failures)
        } catch {
            await context.close()
            await log.value
            throw error
        }
        await context.close()
        await log.value  // the events end with the context's close: every failure is in the log
        let summary = output.map { output in
            if case .stream(let target)? = outputKind {
                let sent = run.account?.delivered ?? run.frames
                return "streamed \(Self.frames(sent)) to \(target)\(run.account.map(Self.losses) ?? "")"
            }
            return "wrote \(Self.frames(run.frames)) to \(output)\(run.timing)\(run.account.map(Self.losses) ?? "")"
        }
        // --record: its own account (it takes every frame the graph gives, whatever the stream drops).
        var recorded: String?
        if let path = streaming.record, let account = run.recordAccount {
            recorded = "recorded \(Self.frames(account.delivered)) to \(path)\(Self.losses(account))"
        }
        // A failure that ended the input or an output outranks a signal; one that only the events
        // said (a node that failed while the rest went on) comes after it.
        if let failure = run.endingFailure(firstEvent: failures.message) { throw ToolFailure(failure) }
        if let signal = run.signal {
            for line in [summary, recorded].compactMap({ $0 }) { Terminal.say(line) }
            throw Interrupted(signal: signal)
        }
        if let failure = failures.message { throw ToolFailure(failure) }
        for line in [summary, recorded].compactMap({ $0 }) { Terminal.say(line) }
    }

    /// How a run went: frames written, the signal that stopped it, the output's timing, and what
    /// ended the input or an output (failures the events said too).
    private struct RunOutcome {
        var frames: Int
        var signal: UnixSignal?
        var timing: String
        /// The output's account of the input's frames (delivered, dropped where and why), and
        /// --record's.
        var account: FrameAccount?
        var recordAccount: FrameAccount?
        var inputFailure: (any Error)?
        /// Said when no frame went through and no event said why.
        var noFrames: String?
        var detectionFailure: (any Error)?
        var outputFailure: (any Error)?

        /// What ended the run, as the user is told it: the input's failure, else that nothing was
        /// decoded, else the failure of an output; a failure the events said first (a crop outside
        /// the picture) explains the output's.
        func endingFailure(firstEvent: String?) -> String? {
            if let inputFailure { return userMessage(for: inputFailure) }
            if let noFrames, firstEvent == nil { return noFrames }
            if let detectionFailure { return userMessage(for: detectionFailure) }
            if let outputFailure { return firstEvent ?? userMessage(for: outputFailure) }
            return nil
        }
    }

    /// Connects INPUT → filters → OUTPUT and runs it until the input ends or a signal stops it.
    /// The output is finished on every path; what the input and the outputs throw is returned.
    private func runGraph(_ options: Options, output outputKind: OutputKind?, limit: Int?,
                          context: RenderContext, preview: PreviewDisplay?, events: EventLog) async throws -> RunOutcome {
        let input = try openInput(options, limit: limit)
        // A motion event's start pulls the pre-record trigger (--trigger motion): the sink is made below.
        let motionTrigger = Locked<(@Sendable () -> Duration?)?>(nil)
        let faceFilters = Self.faceFiltersSeeingInputGeometry(options.filters)
        let detection = try self.detection.attach(to: input.node, beauties: faceFilters.compactMap { $0 as? Beauty },
                                                  reshapes: faceFilters.compactMap { $0 as? FaceReshape },
                                                  people: faceFilters.compactMap { $0 as? any PersonMaskFollowing }) { found in
            if let start = motionTrigger.withLock({ $0 })?() {
                Terminal.say("motion at frame \(found.frame) (\(Self.seconds(found.time.seconds)) s): recording from \(Self.seconds(start)) s")
            }
        }
        let rate = options.frameRate ?? input.frameRate ?? 25
        let depth = bitDepth(of: outputKind, from: input)
        var encoder = options.encoder
        encoder.frameRate = rate
        encoder.bitDepth = depth
        try streaming.apply(to: &encoder, frameRate: rate)
        let sound = try audio.sound(for: input, output: outputKind, context: context, events: events, paced: isLive)
        let device = try virtualCamera.settings(framesPerSecond: Double(rate.numerator) / Double(rate.denominator),
                                                reconnectWindow: try streaming.reconnectWindow())
        let sink = try outputKind.map {
            try OutputSink.make($0, frameRate: rate, bitDepth: depth, encoder: encoder, segments: options.segments, preRecord: options.preRecord,
                                audio: sound, live: options.live, virtualCamera: device, codec: codec, quality: crf,
                                events: events) { [weak input] in
                Terminal.say("the stream failed: ending the run")
                input?.cancel()
            }
        }
        // --record: every frame into a file beside the stream (which may drop some), with its own sound.
        let recording = try streaming.record.map { path in
            let kind = try OutputKind(path: path), fileDepth = bitDepth(of: kind, from: input)
            return try OutputSink.make(kind, frameRate: rate, bitDepth: fileDepth,
                                encoder: { var file = options.encoder; file.frameRate = rate; file.bitDepth = fileDepth; return file }(),
                                audio: try audio.sound(for: input, output: kind, context: context, events: events, paced: true),
                                events: events)
        }
        motionTrigger.withLock { $0 = sink?.trigger }
        let progress = Progress(total: limit == .max ? nil : input.expectedFrames.map { min($0, limit ?? .max) },
                                frameRate: Double(rate.numerator) / Double(max(1, rate.denominator)))
        let counter = FrameCounter { progress.update(frames: $0) }
        // First target: says which crop lies outside the picture before any output fails on it.
        // Weak: the check is a target of the input's node, which the input holds (no cycle).
        input.node.addTarget(CropCheck(filters: options.filters, inputName: self.input ?? "the input") { [weak input] in
            input?.cancel()
        })
        if explain { input.node.addTarget(PlanPrinter(source: input.node)) }
        // One node for the chain: runs of colour filters fuse into one shader pass.
        let chain = options.filters.isEmpty ? nil : try FilterGroup(options.filters)
        var last: ImageOutput = chain ?? input.node
        if let chain { input.node.addTarget(chain) }
        if let overlay = detection?.overlay {
            last.addTarget(overlay)
            last = overlay
        }
        let outputName = output ?? "the output"
        let window = try preview.map { display in
            try PreviewOutput.attach(after: last, display: display, input: input, title: self.input ?? "bundled clip",
                                     context: context) { [weak input] in
                Terminal.say("window closed: finishing \(outputName)")
                input?.cancel()
            }
        }
        // Outputs without timestamps get frames at one constant rate; a Y4M or raw input already
        // comes at one (its frames stamped on its rate's grid), so at that rate it needs no converter
        // (which would hold each frame back and keep the graph from fusing), unless real-time
        // pacing may drop late frames, whose places the converter fills.
        let isConstantRate = outputKind?.hasConstantRate == true
        let onGrid = switch input.kind {
        case .y4m, .rawYUV: !audio.realTime && input.frameRate.map { $0.numerator * rate.denominator == rate.numerator * $0.denominator } ?? false
        default: false
        }
        let converter = isConstantRate && !onGrid ? FrameRateConverter(rate: rate) : nil
        // The progress line's dup= and drop=: the main output's hops, the input's first. Weak: the
        // line is drawn by a node of the input's graph.
        let outputHops = sink?.node as? any FrameAccounting
        progress.follow { [weak input, weak converter, weak outputHops] in
            (input.map { [FrameHop(source: $0.statistics)] } ?? []) + (converter?.frameHops ?? []) + (outputHops?.frameHops ?? [])
        }
        if let converter {
            last.addTarget(converter)
            last = converter
        }
        if let sink { last.addTarget(sink.node) }
        if let recording { last.addTarget(recording.node) }
        last.addTarget(counter)

        if case .camera(let path) = input.kind { Terminal.say("capturing from \(path)") }
        // A pre-recording run waits for SIGUSR1 (trapped for the run only; joined below).
        var triggers: Task<Void, Never>?
        if let trigger = sink?.trigger {
            // Trapped before it is said: a script that signals on reading the line is heard.
            let signal = await TriggerSignal()
            Terminal.say("pre-recording: kill -USR1 \(getpid()) starts the file")
            triggers = Task { await signal.listen(trigger) }
        }
        defer { triggers?.cancel() }
        let (inputFailure, signal) = try await GracefulStop.run(onSignal: { signal in
            FileHandle.standardError.write(Data(
                "\nelimage: \(signal): finishing \(outputName) (press Ctrl-C again to quit at once)\n".utf8))
            window?.setPacing(.newestFrame)
            input.cancel()
        }) { () async -> (any Error)? in
            do {
                try await input.run(on: context)
                return nil
            } catch {
                return error
            }
        }
        triggers?.cancel()
        await triggers?.value
        let count = counter.count
        var run = RunOutcome(frames: count, signal: signal, timing: "", inputFailure: inputFailure)
        if count == 0, signal == nil {
            // Said before the output's own complaint about getting nothing.
            run.noFrames = "\(self.input ?? "the input") has no frame that could be decoded, so nothing was written"
                + (output.map { " to \($0)" } ?? "") + "; check the file plays, e.g. with ffplay"
        }
        do { try await detection?.finish() } catch { run.detectionFailure = error }
        do { try await sink?.finish() } catch { run.outputFailure = error }
        do { try await recording?.finish() } catch { if run.outputFailure == nil { run.outputFailure = error } }
        // Each output's account: the input's hop, the constant rate's, the output's own (an output
        // that counts none of its own: what the input gave the graph).
        let hops = [FrameHop(source: input.statistics)] + (converter?.frameHops ?? [])
        run.account = FrameAccount(hops: hops + ((sink?.node as? any FrameAccounting)?.frameHops ?? []))
        run.recordAccount = recording.map { FrameAccount(hops: hops + (($0.node as? any FrameAccounting)?.frameHops ?? [])) }
        progress.finish(frames: count)
        let schedule = converter?.schedule
        if isConstantRate {
            run.timing = " at \(Self.describe(rate)) fps (constant rate: \(schedule?.duplicated ?? 0) duplicated, \(schedule?.dropped ?? 0) dropped)"
        }
        return run
    }

    /// The beauty, reshape and people filters in `filters` that see the input's geometry (only
    /// colour filters or other such filters before them), so that faces and people found in the
    /// input's frames fit their frames.
    static func faceFiltersSeeingInputGeometry(_ filters: [FilterCatalog.Filter]) -> [FilterCatalog.Filter] {
        var found: [FilterCatalog.Filter] = []
        for filter in filters {
            if filter is Beauty || filter is FaceReshape || filter is any PersonMaskFollowing {
                found.append(filter)
            } else if !(filter is ColorOperation) {
                break
            }
        }
        return found
    }

    /// "; the input made 132 frames: 24 went through, 108 dropped (108 at the input: too late for
    /// real-time pacing)", or "" when none was lost: every frame the input made is counted once,
    /// in the output (repeats of a constant rate aside) or dropped where it was.
    static func losses(_ account: FrameAccount) -> String {
        guard account.dropped > 0 else { return "" }
        return "; the input made \(frames(account.produced)): \(account.delivered - account.repeated) went through, "
            + "\(account.dropped) dropped (\(account.dropList))"
    }

    /// "1 frame", "24 frames".
    static func frames(_ count: Int) -> String { "\(count) frame\(count == 1 ? "" : "s")" }

    /// "25", "30000/1001".
    static func describe(_ rate: Y4MHeader.Ratio) -> String {
        rate.denominator == 1 ? "\(rate.numerator)" : "\(rate.numerator)/\(rate.denominator)"
    }

    struct Options {
        /// --fps; nil: the input's own rate.
        var frameRate: Y4MHeader.Ratio?
        var orientation: Orientation
        var filters: [FilterCatalog.Filter]
        var colorOverride: ColorOverride
        var size: (width: Int, height: Int)?
        var pixelFormat: PixelFormat?
        var encoder: EncoderSettings
        var segments: RecordingSegments?
        var preRecord: Duration?
        var live: LiveStreamOptions
        /// -ss and -t.
        var start: Duration?, duration: Duration?
    }

    func validatedOptions() throws(UsageError) -> Options {
        let frameRate = try fps.map { text throws(UsageError) in try FrameRateArgument.parse(text) }
        let parsedSize = try size.map { text throws(UsageError) in
            try SizeArgument.parse(text, option: "--size", example: "1280x720")
        }
        var encoder = EncoderSettings()
        if let preset { encoder.preset = preset }
        if let crf {
            // x264's 0...51, or the scale of the FFmpeg encoder a .mkv/.webm/.webp output uses.
            let encoded: VideoCodec? = if let output, case .encoded(_, let container)? = try? OutputKind(path: output) {
                codec ?? container.defaultCodec
            } else { nil }
            if encoded == .gif { throw UsageError("--crf \(crf): a .gif output has no quality setting (256 colours a frame)") }
            let range = encoded?.qualityRange ?? 0...51
            guard range.contains(crf) else {
                throw UsageError("--crf \(crf): use \(Int(range.lowerBound))...\(Int(range.upperBound))\(encoded.map { " for \($0)" } ?? "")")
            }
            encoder.rateControl = .constantQuality(crf)
        }
        if let bitrate {
            guard crf == nil else { throw UsageError("--bitrate \(bitrate): give either --bitrate or --crf, not both") }
            encoder.rateControl = .bitrate(kilobitsPerSecond: bitrate)
        }
        if let keyint {
            encoder.keyframeInterval = keyint
        }
        if let chromaFilter { encoder.chromaDownsampling = chromaFilter }
        if let outputDepth, outputDepth != 8, outputDepth != 10 {
            throw UsageError("--output-depth \(outputDepth): use 8 or 10")
        }
        if let input, ["yuv", "raw"].contains(URL(fileURLWithPath: input).pathExtension.lowercased()),
           size == nil || format == nil {
            throw UsageError("raw input \(input) needs --size WIDTHxHEIGHT and --format FORMAT")
        }
        try detection.checkUsage()
        if let codec {
            guard let output, case .encoded(_, let container) = try OutputKind(path: output) else {
                throw UsageError("--codec \(codec): chooses the codec of a .mkv or .webm output (.mp4 is H.264)")
            }
            guard container.codecs.contains(codec) else {
                throw UsageError("--codec \(codec): -o \(output) holds \(container.codecs.map(\.rawValue).joined(separator: " or "))")
            }
        }
        if let start, let input, !MediaSource.hasTimeline(input) {
            throw UsageError("-ss \(start): \(input) has no timeline to begin within; -ss is for movie, Y4M and raw files "
                             + "(give -t alone for a camera or a picture)")
        }
        var segments: RecordingSegments?
        if let segment {
            guard let output, case .video = try OutputKind(path: output) else {
                throw UsageError("--segment \(segment): only a video recording (-o NAME.mp4 or .h264) is split into files")
            }
            segments = RecordingSegments(every: try SegmentArgument.parse(segment), keepingLast: segmentKeep)
        }
        var preRecordDuration: Duration?
        if let preRecord {
            guard let output, case .video = try OutputKind(path: output) else {
                throw UsageError("--pre-record \(preRecord): only a video recording (-o NAME.mp4 or .h264) pre-records")
            }
            guard let duration = try DurationArgument.parse(preRecord, option: "--pre-record") else {
                throw UsageError("--pre-record \(preRecord): give a duration (5s, 500ms, 1m), e.g. --pre-record 5s")
            }
            preRecordDuration = duration
        }
        if detection.trigger != nil, preRecord == nil {
            throw UsageError("--trigger \(detection.trigger ?? ""): starts a --pre-record file; give --pre-record too, e.g. --pre-record 5s")
        }
        if segment == nil, let segmentKeep {
            throw UsageError("--segment-keep \(segmentKeep): keeps the newest files of --segment; give --segment too, e.g. --segment 10m")
        }
        let catalog = FilterCatalog.standard
        var made: [FilterCatalog.Filter] = []
        for text in filters {
            _ = try catalog.requireEntry(named: FilterSpec.name(in: text))  // an unknown name first, then its values
            made.append(try catalog.make(try FilterSpec(parsing: text)))
        }
        try applyBackground(to: made)
        try requirePeopleFiltersSeeTheInput(made)
        return Options(frameRate: frameRate, orientation: Orientation(rotation: rotate, mirrored: mirror),
                       filters: made, colorOverride: ColorOverride(matrix: matrix, range: range), size: parsedSize,
                       pixelFormat: format, encoder: encoder, segments: segments, preRecord: preRecordDuration,
                       live: try streaming.liveOptions(),
                       start: try start.map { text throws(UsageError) in try TimeArgument.parse(text, option: "-ss", allowsZero: true) },
                       duration: try duration.map { text throws(UsageError) in try TimeArgument.parse(text, option: "-t", allowsZero: false) })
    }

    /// Gives --background's picture to each backgroundreplace filter; refuses one without it, and
    /// --background without such a filter.
    private func applyBackground(to filters: [FilterCatalog.Filter]) throws(UsageError) {
        let replacements = filters.compactMap { $0 as? BackgroundReplace }
        guard let background else {
            if !replacements.isEmpty {
                throw UsageError("--filter backgroundreplace needs --background PICTURE (a PNG or JPEG file), e.g. --background beach.jpg")
            }
            return
        }
        guard !replacements.isEmpty else {
            throw UsageError("--background \(background): the new background of --filter backgroundreplace; add that filter")
        }
        let lowered = background.lowercased()
        guard lowered.hasSuffix(".png") || lowered.hasSuffix(".jpg") || lowered.hasSuffix(".jpeg") else {
            throw UsageError("--background \(background): give a PNG or JPEG picture")
        }
        do {
            let picture = lowered.hasSuffix(".png") ? try PNGFile.read(background) : try JPEGFile.read(background)
            for replacement in replacements { try replacement.setBackground(picture) }
        } catch {
            throw UsageError("--background \(background): \(userMessage(for: error))")
        }
    }

    /// Refuses a people filter after a filter that may change the picture's geometry: the people
    /// are found in the input's frames, and the mask would not fit (the filter would pass every
    /// frame on unchanged, waiting for a mask that never comes).
    private func requirePeopleFiltersSeeTheInput(_ filters: [FilterCatalog.Filter]) throws(UsageError) {
        let seeing = Self.faceFiltersSeeingInputGeometry(filters)
        for (index, filter) in filters.enumerated() where filter is any PersonMaskFollowing {
            guard !seeing.contains(where: { $0 === filter }) else { continue }
            throw UsageError("--filter \(self.filters[index]): the people are found in the input's frames, so put it before "
                             + "filters other than colour, beauty and reshape ones (it comes after --filter \(self.filters[index - 1]))")
        }
    }

    /// Refuses a run that writes nowhere (no -o, --preview or --detect), before anything is opened:
    /// it would process the whole input and show nothing.
    func requireOutput() throws(UsageError) {
        guard output == nil, !preview, detection.detect == nil else { return }
        throw UsageError("no output: give one with -o, e.g. -o out.mp4 (or .y4m, .png, ...), or watch it with --preview; "
                         + "without one the frames would be processed and thrown away")
    }

    /// Refuses a run without INPUT (or -i INPUT), as ffmpeg does, before anything is opened.
    func requireInput() throws(UsageError) {
        guard input == nil else { return }
        let clip = BundledMedia.path("bigbuckbunny.mp4")
        let sample = FileManager.default.fileExists(atPath: clip) ? "; a sample clip to try: \(clip)" : ""
        throw UsageError("no input: give a file or a camera, e.g. elimage run clip.mp4 -o out.mp4 (or -i clip.mp4); "
                         + "`elimage devices` lists the cameras" + sample)
    }

    /// Refuses an output file that exists (-o, --record, --metadata, an HLS playlist), before
    /// anything runs; -y replaces them.
    func refuseExistingOutputs(_ outputKind: OutputKind?) throws(UsageError) {
        var named: [(option: String, path: String)] = [("--record", streaming.record), ("--metadata", detection.metadata)]
            .compactMap { option, path in path.map { (option, $0) } }
        if let output, segment == nil {
            switch outputKind {
            case .png(let pattern)?, .jpeg(let pattern)?: if !pattern.contains("%") { named.append(("-o", output)) }
            case .y4m?, .rgba?, .video?, .encoded?: named.append(("-o", output))
            case .stream?: if !output.contains("://") { named.append(("-o", output)) }  // an HLS playlist
            case .virtualCamera?, nil: break
            }
        }
        for (option, path) in named {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }  // none, /dev/null, a FIFO
            throw UsageError("\(option) \(path) exists: add -y to replace it, or choose another name")
        }
    }

    /// Refuses an output that is the input file itself (the same file through another name, a
    /// symbolic or a hard link too), before anything is opened for writing: writing it would
    /// destroy the input while it is being read.
    static func refuseOverwriting(input: String, with output: String, option: String = "-o") throws(UsageError) {
        var inputStatus = stat(), outputStatus = stat()
        guard stat(input, &inputStatus) == 0, stat(output, &outputStatus) == 0 else { return }
        if inputStatus.st_dev == outputStatus.st_dev, inputStatus.st_ino == outputStatus.st_ino {
            throw UsageError("\(option) \(output) is the input file \(input) (the same file): writing it would destroy the input; "
                             + "choose another output path")
        }
    }

    /// Whether -o is live: a stream (RTMP, SRT, HLS) or a virtual camera (/dev/videoN).
    var isLive: Bool {
        guard let output, let kind = try? OutputKind(path: output) else { return false }
        return kind.isLive
    }

    /// Seconds with three decimals, as the run says times ("12.480").
    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    static func seconds(_ duration: Duration) -> String { seconds(duration.timeInterval) }

    /// Bits a sample of `output`: `--output-depth`, else 10 for an input of more than 8 bits (live
    /// streams stay at 8, what players take), else 8.
    func bitDepth(of output: OutputKind?, from input: MediaSource) -> Int {
        outputDepth ?? (input.bitsPerSample > 8 && !(output?.isLive ?? false) ? 10 : 8)
    }

    /// Opens INPUT as the head of the graph.
    func openInput(_ options: Options, limit: Int?) throws -> MediaSource {
        var sourceOptions = MediaSource.Options(frames: limit, orientation: options.orientation,
                                                size: options.size, rawFormat: options.pixelFormat,
                                                autorotate: !noAutorotate)
        sourceOptions.frameRate = options.frameRate
        (sourceOptions.start, sourceOptions.duration) = (options.start, options.duration)
        // A live stream or a virtual camera goes out at the frames' pace (as ffmpeg -re): a file is paced for it.
        sourceOptions.realTime = audio.realTime || isLive
        let override = options.colorOverride
        if !override.isEmpty { sourceOptions.colorSpace = { override.apply(to: $0) } }
        return try MediaSource.open(input, options: sourceOptions)
    }
}

/// The run was stopped by a signal after finishing its output: exit code 128 + the signal number.
struct Interrupted: Error, CustomStringConvertible {
    let signal: UnixSignal
    var description: String { "stopped by \(signal)" }
}

/// A failure while running: exit code 1.
struct ToolFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

