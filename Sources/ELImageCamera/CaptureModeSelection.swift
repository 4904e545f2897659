import ELImage
import Foundation

/// Chooses the device mode closest to some `CaptureSettings`.
///
/// Candidates are every (format, size, interval) the device offers in a format ELImage can
/// capture. They are ranked by, in order:
/// 1. size: the smallest |Δwidth| + |Δheight| (an exact size wins);
/// 2. rate: the interval closest to the wanted rate on a log scale (30 fps when none is asked);
///    in high-frame-rate mode, the shortest interval at that size;
/// 3. format: formats that upload directly before JPEG (NV12, YUYV, I420, UYVY, ..., MJPEG), and
///    native formats before libv4l2's converted ones.
/// So a webcam that gives YUYV 1080p at 5 fps and MJPEG 1080p at 30 fps streams MJPEG when 30 fps
/// is asked, and YUYV when 5 fps is.
enum CaptureModeSelection {
    /// A mode to ask the driver for.
    struct Candidate: Equatable {
        var fourCC: FourCC
        var width: Int
        var height: Int
        /// The interval to set with `VIDIOC_S_PARM`; `nil` when the driver lists none.
        var interval: FrameInterval?
    }

    /// The candidate for `settings` among `formats`.
    /// - Parameter intervalsAt: the intervals at a size chosen inside a stepwise range.
    /// - Throws: `ELImageError.invalidInput` when the named format is not offered or ELImage
    ///   cannot convert any offered format.
    static func choose(
        _ settings: CaptureSettings, from formats: [CameraFormatDescription], path: String,
        intervalsAt: (FourCC, Int, Int) throws -> FrameIntervals = { _, _, _ in .unknown }
    ) throws -> Candidate {
        let offered = formats.map { "\($0.fourCC)" }.joined(separator: ", ")
        var pool = formats.filter { $0.fourCC.isCapturable }
        if let wanted = settings.pixelFormat {
            guard formats.contains(where: { $0.fourCC == wanted }) else {
                throw DeviceErrors.unsupported(path: path, what: "pixel format \(wanted) is not offered",
                                               hint: "the device offers \(offered.isEmpty ? "no formats" : offered); pick one of those or leave pixelFormat nil")
            }
            guard wanted.isCapturable else {
                throw DeviceErrors.unsupported(path: path, what: "ELImage cannot convert pixel format \(wanted)",
                                               hint: "leave pixelFormat nil to let ELImage choose among \(offered)")
            }
            pool = pool.filter { $0.fourCC == wanted }
        }
        guard !pool.isEmpty else {
            throw DeviceErrors.unsupported(
                path: path, what: "none of the offered formats (\(offered.isEmpty ? "none" : offered)) can be captured",
                hint: "ELImage captures NV12, YUYV, UYVY, I420 (YU12), YV12, NV21, 422P, GREY, RGB3, P010 (10-bit) and MJPEG")
        }
        let target = FrameInterval(framesPerSecond: settings.framesPerSecond ?? 30)
        var best: (candidate: Candidate, score: (Int, Double, Int))?
        for format in pool {
            for size in try sizes(of: format, settings: settings, intervalsAt: intervalsAt) {
                let interval = settings.highFrameRate ? size.intervals.shortest : size.intervals.closest(to: target)
                let rateScore: Double
                if let interval {
                    rateScore = settings.highFrameRate ? -interval.framesPerSecond : FrameIntervals.distance(interval, target)
                } else {
                    rateScore = settings.highFrameRate ? 0 : 1
                }
                let score = (abs(size.width - settings.width) + abs(size.height - settings.height), rateScore,
                             format.fourCC.preferenceRank + (format.isEmulated ? 50 : 0))
                let candidate = Candidate(fourCC: format.fourCC, width: size.width, height: size.height, interval: interval)
                if best.map({ isBetter(score, than: $0.score) }) ?? true { best = (candidate, score) }
            }
        }
        guard let best else {
            throw DeviceErrors.unsupported(path: path, what: "no frame size is offered for \(pool.map { "\($0.fourCC)" }.joined(separator: ", "))",
                                           hint: "the driver lists formats without sizes; try another device")
        }
        return best.candidate
    }

    private static func isBetter(_ a: (Int, Double, Int), than b: (Int, Double, Int)) -> Bool {
        if a.0 != b.0 { return a.0 < b.0 }
        if abs(a.1 - b.1) > 1e-9 { return a.1 < b.1 }
        return a.2 < b.2
    }

    /// The sizes to consider: the discrete list, the wanted size fitted into a stepwise range, or
    /// the wanted size itself when the driver lists none (S_FMT then adjusts it).
    private static func sizes(
        of format: CameraFormatDescription, settings: CaptureSettings,
        intervalsAt: (FourCC, Int, Int) throws -> FrameIntervals
    ) throws -> [FrameSizeInfo] {
        switch format.sizes {
        case .discrete(let list):
            return list
        case let .stepwise(minWidth, maxWidth, stepWidth, minHeight, maxHeight, stepHeight):
            let width = fit(settings.width, minimum: minWidth, maximum: maxWidth, step: stepWidth)
            let height = fit(settings.height, minimum: minHeight, maximum: maxHeight, step: stepHeight)
            return [FrameSizeInfo(width: width, height: height, intervals: try intervalsAt(format.fourCC, width, height))]
        case .unknown:
            return [FrameSizeInfo(width: settings.width, height: settings.height, intervals: .unknown)]
        }
    }

    static func fit(_ value: Int, minimum: Int, maximum: Int, step: Int) -> Int {
        let clamped = min(max(value, minimum), maximum)
        let steps = ((Double(clamped - minimum) / Double(max(step, 1))).rounded())
        return min(minimum + Int(steps) * max(step, 1), maximum)
    }

    /// How `mode` differs from `settings`, one line each.
    static func adjustments(from settings: CaptureSettings, to mode: CaptureMode) -> [String] {
        var notes: [String] = []
        if let wanted = settings.pixelFormat, wanted != mode.fourCC {
            notes.append("asked for \(wanted), the driver set \(mode.fourCC)")
        }
        if mode.width != settings.width || mode.height != settings.height {
            notes.append("\(settings.width)x\(settings.height) is not offered, the closest is \(mode.width)x\(mode.height)")
        }
        if settings.highFrameRate {
            if mode.interval == nil { notes.append("the driver does not report its frame rate") }
        } else {
            let wanted = settings.framesPerSecond ?? 30
            if let interval = mode.interval {
                if abs(interval.framesPerSecond - wanted) > wanted * 0.005 {
                    notes.append("\(FrameInterval.format(wanted)) fps is not offered at \(mode.width)x\(mode.height), the closest is \(interval)")
                }
            } else {
                notes.append("the driver does not report its frame rate")
            }
        }
        return notes
    }
}
