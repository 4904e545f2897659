import ELImage
import Foundation

/// Motion from frame differences, as security cameras and rpicam-apps trigger on it: each frame is
/// shrunk on the GPU (by `DetectorOutput`, to 160×90 for 16:9 by default: the averaging removes
/// sensor noise), and on the detector's worker its luma is compared with the frame analysed before:
/// pixels that changed by more than `threshold` levels count, and when they cover at least
/// `minimumArea` of the picture there is motion. An event starts with the first such frame, goes
/// on while motion does, and ends once `holdTime` of frame time has passed without any: each
/// analysed frame in an event gives one `Motion` detection (`.start`, `.ongoing`, `.end`); a
/// still scene gives none.
///
/// The difference of a 160×90 picture is 14,400 subtractions on the worker, cheaper than a GPU
/// pass and a second readback would be; the shrinking, which reads every pixel of the frame, is
/// the GPU's.
public final class MotionDetector: MetadataDetector {
    /// How the detector decides.
    public struct Settings: Sendable, Equatable {
        /// Luma levels (0...255) a pixel must change by to count.
        public var threshold: Int = 16
        /// The fraction of the picture (0...1) that must change for motion.
        public var minimumArea: Double = 0.005
        /// Frame time an event lasts after its last motion.
        public var holdTime: Duration = .seconds(2)

        public init(threshold: Int = 16, minimumArea: Double = 0.005, holdTime: Duration = .seconds(2)) {
            self.threshold = threshold
            self.minimumArea = minimumArea
            self.holdTime = holdTime
        }
    }

    public let name = "motion"
    public let preferredAnalysisSize: (width: Int, height: Int)
    public let settings: Settings

    /// The frame analysed before and the event in progress, on the worker.
    private struct State {
        var previous: [UInt8] = []
        var previousSize = (width: 0, height: 0)
        /// The frame time of the last motion, while an event lasts.
        var lastMotion: Double?
    }

    private let state = Locked(State())

    /// - Throws: `ELImageError.invalidInput` for a threshold outside 1...255, an area outside
    ///   (0, 1] or a negative hold time.
    public init(settings: Settings = Settings(), analysisSize: (width: Int, height: Int) = (160, 160)) throws {
        guard (1...255).contains(settings.threshold) else {
            throw ELImageError.invalidInput(what: "motion threshold \(settings.threshold)", hint: "give 1...255 luma levels, e.g. 16")
        }
        guard settings.minimumArea > 0, settings.minimumArea <= 1 else {
            throw ELImageError.invalidInput(what: "motion area \(settings.minimumArea)",
                                            hint: "give a fraction of the picture in (0, 1], e.g. 0.005 for half a percent")
        }
        guard settings.holdTime >= .zero else {
            throw ELImageError.invalidInput(what: "motion hold time \(settings.holdTime)", hint: "give zero or more seconds")
        }
        self.settings = settings
        preferredAnalysisSize = analysisSize
    }

    public func detect(in image: AnalysisImage) throws -> [Detection] {
        let (width, height) = (image.width, image.height)
        let current = image.withRows { rows, bytesPerRow -> [UInt8] in
            guard let rows else { return [] }
            var pixels = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width { pixels[y * width + x] = rows[y * bytesPerRow + x] }
            }
            return pixels
        }
        let time = image.time.seconds
        let hold = settings.holdTime.timeInterval
        return state.withLock { state -> [Detection] in
            defer {
                state.previous = current
                state.previousSize = (width, height)
            }
            // The first frame, or a new size: nothing to compare with.
            guard state.previousSize == (width, height), !state.previous.isEmpty else { return [] }
            let change = Self.change(state.previous, current, width: width, height: height, threshold: settings.threshold)
            let moving = change.area >= settings.minimumArea
            let event: Motion.Event
            switch (state.lastMotion, moving) {
            case (nil, false): return []
            case (nil, true): event = .start
            case (_, true): event = .ongoing
            case (let last?, false): event = time - last >= hold - 1e-6 ? .end : .ongoing  // frame times are not exact in binary
            }
            state.lastMotion = event == .end ? nil : (moving ? time : state.lastMotion)
            let box = change.box.map { box in
                CGRect(x: Double(box.minX) / Double(width), y: Double(box.minY) / Double(height),
                       width: Double(box.maxX - box.minX + 1) / Double(width),
                       height: Double(box.maxY - box.minY + 1) / Double(height))
            } ?? .zero
            return [.motion(Motion(event: event, area: change.area, bounds: box,
                                   pixelBounds: box.scaled(Double(image.frameWidth), Double(image.frameHeight))))]
        }
    }

    /// The fraction of pixels that differ by more than `threshold`, and their bounding box.
    static func change(_ previous: [UInt8], _ current: [UInt8], width: Int, height: Int, threshold: Int)
        -> (area: Double, box: (minX: Int, minY: Int, maxX: Int, maxY: Int)?) {
        var count = 0
        var box: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
        for y in 0..<height {
            for x in 0..<width where abs(Int(current[y * width + x]) - Int(previous[y * width + x])) > threshold {
                count += 1
                box = box.map { (min($0.minX, x), min($0.minY, y), max($0.maxX, x), max($0.maxY, y)) } ?? (x, y, x, y)
            }
        }
        return (Double(count) / Double(max(1, width * height)), box)
    }
}
