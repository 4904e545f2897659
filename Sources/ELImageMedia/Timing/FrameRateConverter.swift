import ELImage

/// Makes a stream constant-rate, like FFmpeg's `-fps_mode cfr`: frames are re-stamped on the grid
/// of `rate`, repeated across gaps and dropped where two fall in one slot (see
/// `ConstantRateSchedule`). Put it before outputs that have no timestamps of their own (Y4M, raw
/// H.264); repeated frames share the picture's texture, nothing is copied.
///
/// It holds one frame back (a frame's slots are known when the next one arrives) and sends the
/// last at end-of-stream.
public final class FrameRateConverter: ImageOutput, ImageInput {
    public let outputs = OutputTargets()
    public let inputSlots = InputSlots()
    private let state: Locked<(schedule: ConstantRateSchedule, held: TextureFrame?)>

    /// A converter to `rate` frames per second (positive numerator and denominator).
    public init(rate: Y4MHeader.Ratio) {
        state = Locked((ConstantRateSchedule(rate: rate), nil))
    }

    /// The counts so far: frames sent, extra copies, frames left out.
    public var schedule: ConstantRateSchedule { state.withLock { $0.schedule } }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        let (slots, previous, schedule) = state.withLock { state in
            let slots = state.schedule.arrive(at: frame.timestamp)
            defer { state.held = frame }
            return (slots, state.held, state.schedule)
        }
        if let previous { send(previous, in: slots, schedule: schedule, context: context) }
    }

    /// Sends the frame held back, in the slots left to it, then ends the stream. A source delivers
    /// the end of its stream also when it fails or is closed, so every frame it delivered goes out.
    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        sendHeldFrame(in: context)
        deliverEndOfStream(in: context)
    }

    private func sendHeldFrame(in context: isolated RenderContext) {
        let (slots, last, schedule) = state.withLock { state in
            let slots = state.schedule.finish()
            defer { state.held = nil }
            return (slots, state.held, state.schedule)
        }
        if let last { send(last, in: slots, schedule: schedule, context: context) }
    }

    private func send(_ frame: TextureFrame, in slots: Range<Int64>, schedule: ConstantRateSchedule,
                      context: isolated RenderContext) {
        for slot in slots {
            let time = schedule.time(ofSlot: slot)
            deliver(time == frame.timestamp ? frame : frame.retimed(to: time), in: context)
        }
    }
}

extension FrameRateConverter: PlanDescribing {
    package var planSummary: String {
        "no pass: holds each frame until the next to put frames on the constant rate's grid (a fused line stops here)"
    }
}

extension FrameRateConverter: FrameAccounting {
    /// One hop: each frame shown once, repeated across gaps, or dropped when another took its slot.
    public var frameHops: [FrameHop] {
        let schedule = schedule
        return [FrameHop(name: "the constant frame rate", framesIn: schedule.emitted - schedule.duplicated + schedule.dropped,
                         passedOn: schedule.emitted, repeated: schedule.duplicated,
                         drops: [.init(schedule.dropped, "another frame took its place in the same frame time")])]
    }
}
