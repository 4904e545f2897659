import ELImage

/// Decides which frames of a stream fill the slots of a constant frame rate, the way FFmpeg's
/// `-fps_mode cfr` does: frames keep their place in time, gaps are filled by repeating the frame
/// before them, and a frame that another one replaces in the same slot is dropped.
///
/// Slot `k` starts at `k / rate` seconds. A frame at time `t` belongs to slot `round(t × rate)`
/// (halves round up), and is shown from its slot up to the next frame's slot: once when the next
/// frame is in the following slot, several times (duplicates) across a gap, not at all (dropped)
/// when the next frame falls in the same slot. The last frame lasts as long as the gap before it
/// (a constant-rate source keeps its duration), and is shown at least once. The output starts at
/// the first frame's slot. Repeats match ffmpeg's; where ffmpeg lets frames drift up to 1.1 frames
/// late before it drops one (its output may run a frame or two long), frames here keep their slot,
/// so the output lasts as long as the input. A gap longer than `longestGap` (as ffmpeg, which skips
/// a "frame duplication too large") is a timestamp jump, not a pause: the frame before it is shown
/// once and the grid goes on from the frame after it.
///
/// Feed the frames' times in order with `arrive(at:)`, which answers for the frame held before;
/// `finish()` answers for the last.
public struct ConstantRateSchedule: Sendable, Equatable {
    /// The constant rate, frames per second.
    public let rate: Y4MHeader.Ratio
    /// Extra copies shown to fill gaps.
    public private(set) var duplicated = 0
    /// Frames not shown at all (another frame took their slot).
    public private(set) var dropped = 0
    /// Slots filled so far.
    public private(set) var emitted = 0
    /// The next slot to fill, once a frame has arrived.
    private var next: Int64?
    private var holding = false
    /// The held frame's time, and the gap before it.
    private var heldTime: MediaTime?
    private var lastGap: MediaTime?

    /// The most slots one frame fills: an hour of frames.
    public var longestGap: Int64 {
        max(1, 3600 * Int64(rate.numerator) / Int64(max(1, rate.denominator)))
    }

    /// A schedule at `rate` (positive numerator and denominator).
    public init(rate: Y4MHeader.Ratio) {
        self.rate = rate
    }

    /// The slot `time` falls in: `round(time × rate)`, halves up, in exact integer arithmetic.
    public func slot(of time: MediaTime) -> Int64 {
        let numerator = Int64(rate.numerator), denominator = Int64(rate.denominator)
        let scale = Int64(max(1, time.timescale))
        // floor((2·value·num + scale·den) / (2·scale·den)), without overflow for any real stream.
        let (top, overflowTop) = (2 * time.value).multipliedReportingOverflow(by: numerator)
        let (bottom, overflowBottom) = (2 * scale).multipliedReportingOverflow(by: denominator)
        guard !overflowTop, !overflowBottom, top <= Int64.max - bottom / 2 else {
            let position = (time.seconds * Double(numerator) / Double(denominator) + 0.5).rounded(.down)
            guard position.isFinite, position.magnitude < 1e15 else { return position < 0 ? -Self.farthestSlot : Self.farthestSlot }
            return Int64(position)
        }
        let sum = top + bottom / 2
        let quotient = sum / bottom
        return sum % bottom < 0 ? quotient - 1 : quotient
    }

    /// The start time of `slot`, exact: `slot × den / num` seconds (timescale `num`).
    public func time(ofSlot slot: Int64) -> MediaTime {
        let bounded = min(max(slot, -Self.farthestSlot), Self.farthestSlot)
        return MediaTime(value: bounded * Int64(rate.denominator), timescale: Int32(clamping: rate.numerator))
    }

    /// Slots beyond this (damaged timestamps) are clamped to it: 2^31 frames, years at any rate.
    static let farthestSlot: Int64 = 1 << 31

    /// A frame at `time` arrives and is held. Returns the slots the frame held before fills
    /// (empty for the first frame, and when the held frame is dropped).
    public mutating func arrive(at time: MediaTime) -> Range<Int64> {
        let position = slot(of: time)
        if let heldTime, heldTime < time { lastGap = MediaTimeMath.difference(time, heldTime) }
        heldTime = time
        guard holding, let start = next else {
            next = position
            holding = true
            return position..<position
        }
        if position - start > longestGap {
            let slots = start..<(start + 1)
            account(slots)
            next = position
            return slots
        }
        let slots = start..<max(start, position)
        account(slots)
        next = slots.upperBound
        return slots
    }

    /// The stream ended: the slots the last frame fills (empty when no frame came).
    public mutating func finish() -> Range<Int64> {
        guard holding, let start = next else { return 0..<0 }
        holding = false
        let end = heldTime.flatMap { time in lastGap.map { slot(of: MediaTimeMath.sum(time, $0)) } } ?? start + 1
        let slots = start..<max(start + 1, min(end, start + longestGap))
        account(slots)
        next = slots.upperBound
        return slots
    }

    private mutating func account(_ slots: Range<Int64>) {
        if slots.isEmpty { dropped += 1 } else { duplicated += slots.count - 1 }
        emitted += slots.count
    }
}
