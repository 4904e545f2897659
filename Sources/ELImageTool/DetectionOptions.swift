import ArgumentParser
import ELImage
import ELImageDetection
import ELImageMedia
import Foundation

/// `elimage run --detect faces,codes [--metadata FILE] [--overlay]`: detectors on a side branch of
/// the input, one JSON line per detection per analysed frame, in the input's pixels.
struct DetectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Detect faces, codes or both (faces,codes): one JSON line per detection per analysed frame.",
        discussion: """
            Lines go to standard output (messages then go to standard error), or to --metadata FILE. \
            Faces: {"frame":12,"time":0.48,"type":"face","id":3,"bounds":[x,y,w,h],"confidence":0.93,"roll":-2.1,"yaw":4.0}; \
            codes: {"frame":0,"time":0,"type":"qr","format":"QRCode","text":"...","points":[[x,y],...]}. \
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

    @Option(help: "The size frames are shrunk to for detection, WIDTHxHEIGHT (default: faces 320x320, codes 640x360; the aspect is kept).")
    var detectSize: String?

    /// The numbers that must be positive, checked before anything runs.
    func validate() throws {
        if detectEvery < 1 { throw ValidationError("--detect-every \(detectEvery): must be a positive number, e.g. --detect-every 5") }
        if let detectRate, !(detectRate > 0) {
            throw ValidationError("--detect-rate \(detectRate): must be a positive number, e.g. --detect-rate 5")
        }
    }

    /// Refuses --metadata and --overlay without --detect.
    func checkUsage() throws(UsageError) {
        if detect == nil, metadata != nil || overlay {
            throw UsageError("--metadata and --overlay need --detect faces, codes or faces,codes")
        }
    }

    /// The detectors, writer and overlay of one run.
    final class Run: Sendable {
        let outputs: [DetectorOutput]
        /// Goes between the filters and the output, when --overlay was given.
        let overlay: MetadataOverlay?
        private let lines: JSONLinesWriter

        init(outputs: [DetectorOutput], overlay: MetadataOverlay?, lines: JSONLinesWriter) {
            self.outputs = outputs
            self.overlay = overlay
            self.lines = lines
        }

        /// Closes the detectors (analysing what waits), then finishes the JSON Lines file.
        func finish() async throws {
            for output in outputs { await output.close() }
            try lines.finish()
        }

        /// Closes the detectors and removes an unfinished JSON Lines file.
        func abandon() async {
            for output in outputs { await output.close() }
            lines.discard()
        }
    }

    /// Adds the detectors to `source`'s targets; nil without --detect. The faces found seed the skin
    /// model of each filter in `beauties` (whose frames must have the input's geometry). The
    /// detectors follow the library's default: every sampled frame of a file is analysed (and an
    /// overlay is in step), a camera is never slowed.
    func attach(to source: ImageOutput, beauties: [Beauty] = []) throws -> Run? {
        guard let detect else {
            try checkUsage()
            return nil
        }
        let size = try detectSize.map { text throws(UsageError) in
            try SizeArgument.parse(text, option: "--detect-size", minimum: 8, example: "640x360")
        }
        var detectors: [any MetadataDetector] = []
        for kind in detect.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            switch kind {
            case "faces", "face": detectors.append(try FaceDetector())
            case "codes", "code": detectors.append(CodeDetector())
            default: throw UsageError("--detect \(kind): use faces, codes or faces,codes")
            }
        }
        let lines = try JSONLinesWriter(path: metadata)
        let overlay = overlay ? MetadataOverlay() : nil
        let settings = DetectorOutput.Settings(analysisSize: size, interval: detectEvery, maximumRate: detectRate)
        let outputs = try detectors.map { detector in
            try DetectorOutput(detector: detector, settings: settings) { found in
                lines.write(found.jsonLines)
                overlay?.show(found)
                if detector is FaceDetector { Self.seed(beauties, with: found.faces) }
            }
        }
        for output in outputs { source.addTarget(output) }
        return Run(outputs: outputs, overlay: overlay, lines: lines)
    }

    /// Gives the faces of the newest analysis to each beauty filter; with none found, the filters
    /// fall back on their own portrait prior.
    private static func seed(_ beauties: [Beauty], with faces: [Face]) {
        guard !beauties.isEmpty else { return }
        let regions = faces.map { face in
            FaceRegion(x: Float(face.bounds.minX), y: Float(face.bounds.minY),
                       width: Float(face.bounds.width), height: Float(face.bounds.height))
        }
        for beauty in beauties { beauty.faceRegions = regions }
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
        guard FileManager.default.createFile(atPath: staged.temporary, contents: nil),
              let file = FileHandle(forWritingAtPath: staged.temporary) else {
            throw ELImageError.io(file: path, operation: "create", errno: errno,
                                  hint: "check that the folder exists and is writable")
        }
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
