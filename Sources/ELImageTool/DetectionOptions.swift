import ArgumentParser
import ELImage
import ELImageCommandLine
import ELImageDetection
import ELImageMedia
import Foundation

/// `elimage run --detect faces,codes,motion [--metadata FILE] [--overlay]`: detectors on a side
/// branch of the input, one JSON line per detection per analysed frame, in the input's pixels; and
/// `--trigger motion`, motion as the trigger of a pre-recording run.
struct DetectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Detect faces, codes, motion or several (faces,codes): one JSON line per detection per analysed frame.",
        discussion: """
            Lines go to standard output (messages then go to standard error), or to --metadata FILE. \
            Faces: {"frame":12,"time":0.48,"type":"face","id":3,"bounds":[x,y,w,h],"confidence":0.93,"roll":-2.1,"yaw":4.0,"landmarks":[[x,y],...]} \
            (landmarks: left eye, right eye, nose, mouth left, mouth right; MTCNN's networks, which `make deps` installs; \
            `haar` instead of `faces`: OpenCV's Haar cascades, boxes without landmarks; a beauty filter \
            on the input uses the faces: their skin colour, and with landmarks their folds, eyes and lips); \
            codes: {"frame":0,"time":0,"type":"qr","format":"QRCode","text":"...","points":[[x,y],...]}; \
            motion: {"frame":50,"time":2,"type":"motion","event":"start","area":0.0342,"bounds":[x,y,w,h]} (event start, ongoing, end); \
            people: {"frame":3,"time":0.12,"type":"people","coverage":0.41,"bounds":[x,y,w,h]} (MediaPipe's selfie segmentation, \
            which `make deps` installs; the background filters on the input follow it, and add it by themselves when not asked for). \
            From a file every analysed frame is waited for; from a camera the detector takes the newest frame and skips what it cannot keep up with.
            """))
    var detect: String?

    @Option(help: "Write the detections as JSON Lines to this file instead of standard output.")
    var metadata: String?

    @Flag(help: "Draw the detections into the output: face boxes in green, code outlines in yellow.")
    var overlay = false

    @Option(parsing: .unconditional, help: "Analyse every Nth frame.")
    var detectEvery = 1

    @Option(parsing: .unconditional, help: "Analyse at most this many frames per second of the input's time (e.g. 5).")
    var detectRate: Double?

    @Option(help: "The size frames are shrunk to for detection, WIDTHxHEIGHT (default: faces 320x320, codes 640x360, motion 160x160; the aspect is kept).")
    var detectSize: String?

    @Option(help: ArgumentHelp("What starts a --pre-record file besides SIGUSR1: motion (a motion event's start).",
                               discussion: "Motion is looked for even without --detect motion (then without JSON lines)."))
    var trigger: String?

    @Option(name: .customLong("motion-threshold"), parsing: .unconditional,
            help: "Motion: luma levels (1...255) a pixel of the shrunk frame must change by (default 16).")
    var motionThreshold: Int?

    @Option(name: .customLong("motion-area"), parsing: .unconditional,
            help: "Motion: the fraction of the picture that must change (default 0.005, half a percent).")
    var motionArea: Double?

    @Option(name: .customLong("motion-hold"),
            help: "Motion: how long an event lasts after its last motion (default 2s).")
    var motionHold: String?

    /// The numbers that must be positive or within the motion detector's ranges, checked before
    /// anything runs.
    func validate() throws {
        if detectEvery < 1 { throw ValidationError("--detect-every \(detectEvery): must be a positive number, e.g. --detect-every 5") }
        if let detectRate, !(detectRate > 0) {
            throw ValidationError("--detect-rate \(detectRate): must be a positive number, e.g. --detect-rate 5")
        }
        if let motionThreshold, !(1...255).contains(motionThreshold) {
            throw ValidationError("--motion-threshold \(motionThreshold): give 1...255 luma levels, e.g. --motion-threshold 16")
        }
        if let motionArea, !(motionArea > 0 && motionArea <= 1) {
            throw ValidationError("--motion-area \(motionArea): give a fraction of the picture in (0, 1], e.g. --motion-area 0.005")
        }
        do {
            _ = try motionSettings()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Refuses --metadata and --overlay without --detect, and a trigger other than motion.
    func checkUsage() throws(UsageError) {
        if detect == nil, metadata != nil || overlay {
            throw UsageError("--metadata and --overlay need --detect faces, codes, motion or several (faces,codes)")
        }
        if let trigger, trigger.lowercased() != "motion" {
            throw UsageError("--trigger \(trigger): use --trigger motion (SIGUSR1 always triggers a --pre-record run)")
        }
    }

    /// The motion detector's settings from the options.
    func motionSettings() throws(UsageError) -> MotionDetector.Settings {
        var settings = MotionDetector.Settings()
        if let motionThreshold { settings.threshold = motionThreshold }
        if let motionArea { settings.minimumArea = motionArea }
        if let motionHold {
            guard let hold = try DurationArgument.parse(motionHold, option: "--motion-hold") ?? (motionHold == "0" ? .zero : nil) else {
                throw UsageError("--motion-hold \(motionHold): give a duration, e.g. --motion-hold 2s")
            }
            settings.holdTime = hold
        }
        return settings
    }

    /// The detectors, writer and overlay of one run.
    final class Run: Sendable {
        let outputs: [DetectorOutput]
        /// Goes between the filters and the output, when --overlay was given.
        let overlay: MetadataOverlay?
        /// The JSON Lines of --detect (none for --trigger motion alone).
        private let lines: JSONLinesWriter?

        init(outputs: [DetectorOutput], overlay: MetadataOverlay?, lines: JSONLinesWriter?) {
            self.outputs = outputs
            self.overlay = overlay
            self.lines = lines
        }

        /// Closes the detectors (analysing what waits), then finishes the JSON Lines file.
        func finish() async throws {
            for output in outputs { await output.close() }
            try lines?.finish()
        }

        /// Closes the detectors and removes an unfinished JSON Lines file.
        func abandon() async {
            for output in outputs { await output.close() }
            lines?.discard()
        }
    }

    /// Adds the detectors to `source`'s targets; nil without --detect, --trigger, a reshape or a
    /// people filter. The masks found (a segmenter is added for them when --detect does not ask
    /// for one) steer each filter in `people`. The faces found seed the skin model of each filter in `beauties` (and with
    /// --detect faces, their landmarks steer its fold smoothing); the landmarks found (a landmark
    /// detector is added for them when --detect does not ask for one) steer each filter in
    /// `reshapes` (both kinds' frames must have the input's geometry); a motion
    /// event's start calls `motionStarted` (`--trigger motion`). The detectors follow the
    /// library's default: every sampled frame of a file is analysed (and an overlay and a reshape
    /// are in step), a camera is never slowed.
    func attach(to source: ImageOutput, beauties: [Beauty] = [], reshapes: [FaceReshape] = [],
                people: [any PersonMaskFollowing] = [],
                motionStarted: (@Sendable (Metadata) -> Void)? = nil) throws -> Run? {
        try checkUsage()
        let triggersOnMotion = trigger != nil
        guard detect != nil || triggersOnMotion || !reshapes.isEmpty || !people.isEmpty else { return nil }
        let size = try detectSize.map { text throws(UsageError) in
            try SizeArgument.parse(text, option: "--detect-size", minimum: 8, example: "640x360")
        }
        // The detectors --detect asks for write JSON lines; the one --trigger motion adds does not.
        var detectors: [(detector: any MetadataDetector, writesLines: Bool)] = []
        for kind in (detect ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            switch kind {
            case "faces", "face", "landmarks": detectors.append((try FaceLandmarkDetector(), true))
            case "haar": detectors.append((try FaceDetector(), true))
            case "codes", "code": detectors.append((CodeDetector(), true))
            case "motion": detectors.append((try MotionDetector(settings: try motionSettings()), true))
            case "people", "person": detectors.append((try PersonSegmenter(), true))
            default: throw UsageError("--detect \(kind): use faces, haar (faces by Haar cascades), codes, motion, people or several (faces,codes)")
            }
        }
        if !reshapes.isEmpty, !detectors.contains(where: { $0.detector is FaceLandmarkDetector }) {
            detectors.append((try FaceLandmarkDetector(), false))
        }
        if !people.isEmpty, !detectors.contains(where: { $0.detector is PersonSegmenter }) {
            detectors.append((try PersonSegmenter(), false))
        }
        if triggersOnMotion, !detectors.contains(where: { $0.detector is MotionDetector }) {
            detectors.append((try MotionDetector(settings: try motionSettings()), false))
        }
        let lines = detect == nil ? nil : try JSONLinesWriter(path: metadata)
        let overlay = overlay ? MetadataOverlay() : nil
        let settings = DetectorOutput.Settings(analysisSize: size, interval: detectEvery, maximumRate: detectRate)
        let outputs = try detectors.map { detector, writesLines in
            try DetectorOutput(detector: detector, settings: settings) { found in
                if writesLines { lines?.write(found.jsonLines) }
                overlay?.show(found)
                if detector is FaceDetector || detector is FaceLandmarkDetector { for beauty in beauties { beauty.follow(found) } }
                if detector is FaceLandmarkDetector { Self.steer(reshapes, with: found) }
                if detector is PersonSegmenter { for filter in people { filter.follow(found) } }
                if triggersOnMotion, found.motion?.event == .start { motionStarted?(found) }
            }
        }
        for output in outputs { source.addTarget(output) }
        return Run(outputs: outputs, overlay: overlay, lines: lines)
    }

    /// Gives the landmarks of the newest analysis to each reshape filter.
    private static func steer(_ reshapes: [FaceReshape], with found: Metadata) {
        let faces = found.facePoints
        for reshape in reshapes { reshape.faces = faces }
    }
}

/// Writes JSON lines from the detectors' threads, whole lines at a time, to standard output or
/// to a file staged under a temporary name until the run finishes.
final class JSONLinesWriter: Sendable {
    private let handle: Locked<FileHandle?>
    private let staged: StagedOutputFile?
    private let failure = Locked<String?>(nil)

    /// - Parameter path: the file; nil for standard output (messages then go to standard error).
    init(path: String?) throws {
        guard let path else {
            staged = nil
            handle = Locked(FileHandle.standardOutput)
            Terminal.standardOutputIsData.withLock { $0 = true }
            return
        }
        let staged = StagedOutputFile(destination: path)
        let file = FileHandle(fileDescriptor: try staged.create(), closeOnDealloc: true)
        self.staged = staged
        handle = Locked(file)
    }

    func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let data = Data(lines.map { $0 + "\n" }.joined().utf8)
        handle.withLock { handle in
            do {
                try handle?.write(contentsOf: data)
            } catch {
                failure.withLock { $0 = $0 ?? "\(error)" }
            }
        }
    }

    /// Closes the file and puts it in place.
    func finish() throws {
        let file = handle.withLock { handle in
            defer { handle = nil }
            return handle
        }
        guard let staged else { return }
        try file?.close()
        if let message = failure.withLock({ $0 }) {
            staged.discard()
            throw ELImageError.io(file: staged.destination, operation: "write", errno: EIO, hint: message)
        }
        try staged.publish()
    }

    /// Removes an unfinished file.
    func discard() {
        let file = handle.withLock { handle in
            defer { handle = nil }
            return handle
        }
        guard let staged else { return }
        try? file?.close()
        staged.discard()
    }
}
