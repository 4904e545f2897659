import ELImage

/// A camera's stream as a `FrameProducer`: each `next` captures from whichever device session is
/// in the camera's `CaptureSlot` now, so `restart(with:)` and `switchDevice(to:)` swap the
/// session under a run that goes on (one stream, times continue, statistics add up).
///
/// Runs on the runner's producer thread (`ELImage.camera`) and never waits for the graph: the
/// runner's newest-wins queue takes every frame. It polls in short slices, so a stop, a swap or a
/// cancel is noticed within one; a device that sends nothing for the stall timeout (on the
/// context's clock), vanishes or fails ends the stream: the error goes to the error handler, then
/// end-of-stream.
struct CameraProducer: FrameProducer {
    let slot: CaptureSlot
    private let clock: any BlockingClock
    /// Where the camera learns the monotonic time that timestamp zero stands for.
    private let timeOrigin: Locked<Int64?>
    private var publishedOrigin: Int64?
    private var decoder: MJPEGDecoder?
    /// The stream's time base: the first frame's monotonic time, and the last time handed out.
    private var clockBase: Int64?
    private var lastTime: Int64?
    /// What is known of the session captured from last.
    private var session: ObjectIdentifier?
    private var frameNumber = 0
    private var lastFrame: ContinuousClock.Instant
    private var previous: (microseconds: Int64, sequence: UInt32)?
    private var reportedDamage = false

    init(slot: CaptureSlot, clock: any BlockingClock, timeOrigin: Locked<Int64?>) {
        self.slot = slot
        self.clock = clock
        self.timeOrigin = timeOrigin
        lastFrame = clock.now
    }

    mutating func next(_ control: ProducerControl) -> ProducedFrame {
        while !control.isCancelled {
            let session: CaptureSession
            switch slot.borrow() {
            case .session(let borrowed): session = borrowed
            case .ended(let failure):
                if let failure { control.report(failure) }
                return .endOfStream
            }
            if ObjectIdentifier(session) != self.session { begin(session) }
            let step = capture(from: session)
            slot.giveBack(failing: step.failure)?.release()
            count(step, control)
            if let (buffer, microseconds, _) = step.frame {
                return .picture(stamped(buffer, microseconds, session.settings.timestamps),
                                orientation: session.settings.orientation)
            }
        }
        return .endOfStream
    }

    /// Starts counting frames, the stall timeout and damage afresh for a new session.
    private mutating func begin(_ session: CaptureSession) {
        self.session = ObjectIdentifier(session)
        frameNumber = 0
        lastFrame = clock.now
        previous = nil
        reportedDamage = false
    }

    /// One poll slice on `session`, bounded by what is left of the stall timeout.
    private mutating func capture(from session: CaptureSession) -> CaptureStep {
        let path = session.device.path
        if session.mode.fourCC.isJPEG, decoder == nil {
            do {
                decoder = try MJPEGDecoder()
            } catch {
                return CaptureStep(failure: error as? ELImageError ?? .invalidState(node: path, reason: "\(error)"))
            }
        }
        // Cameras take a moment to start (exposure settling): the first frame gets 3 s more.
        let timeout = frameNumber == 0 ? session.settings.stallTimeout + CaptureSession.startupGrace
            : session.settings.stallTimeout
        let remaining = timeout - (clock.now - lastFrame)
        let slice = min(CaptureSession.milliseconds(CaptureSession.pollSlice), max(1, CaptureSession.milliseconds(remaining)))
        var step = session.capture(waitingAtMost: slice, frameNumber: frameNumber, decoder: decoder)
        if step.frame != nil {
            lastFrame = clock.now
            frameNumber += 1
        } else if step.timedOut, clock.now - lastFrame >= timeout {
            step.failure = DeviceErrors.stalled(path: path, timeout: timeout, frame: frameNumber)
        }
        return step
    }

    /// Counts what the step brought besides its frame (which the runner counts as produced):
    /// discarded frames (produced and dropped), damage (the first error of a session reported),
    /// the driver's skips and the intervals between frames.
    private mutating func count(_ step: CaptureStep, _ control: ProducerControl) {
        for (microseconds, sequence) in step.discarded {
            let (interval, skipped) = advance(microseconds, sequence)
            control.count { statistics in
                statistics.produced += 1
                statistics.countDrop(.replacedByNewer)
                Self.add(interval, skipped, to: &statistics)
            }
        }
        for error in step.damaged {
            // The first undecodable frame of a session is a hint that the camera sends bad data;
            // damage is not fatal, and reporting each could flood the handler.
            if let error, !reportedDamage {
                reportedDamage = true
                control.reportDamage(error)
            } else {
                control.count { $0.damaged += 1 }
            }
        }
        if let (_, microseconds, sequence) = step.frame {
            let (interval, skipped) = advance(microseconds, sequence)
            control.count { Self.add(interval, skipped, to: &$0) }
        }
    }

    /// The interval since the session's previous frame and the frames the driver skipped between.
    private mutating func advance(_ microseconds: Int64, _ sequence: UInt32) -> (interval: Int64?, skipped: Int) {
        defer { previous = (microseconds, sequence) }
        guard let previous else { return (nil, 0) }
        let skipped = sequence > previous.sequence &+ 1 ? Int(sequence - previous.sequence - 1) : 0
        return (microseconds - previous.microseconds, skipped)
    }

    private static func add(_ interval: Int64?, _ skipped: Int, to statistics: inout SourceStatistics) {
        statistics.skippedByDriver += skipped
        if let interval, interval > 0 {
            statistics.intervalSum += interval
            statistics.intervalCount += 1
        }
    }

    /// The frame with its stream time: the buffer's monotonic time, or relative to the stream's
    /// first frame; never going backwards, through restarts and switches too.
    private mutating func stamped(_ buffer: PixelBuffer, _ microseconds: Int64, _ mode: TimestampMode) -> PixelBuffer {
        var time: Int64
        switch mode {
        case .monotonicClock:
            time = microseconds
        case .relativeToFirstFrame:
            let base = clockBase ?? microseconds
            clockBase = base
            time = microseconds - base
        }
        // What timestamp zero stands for, told to the camera when it changes (the first frame).
        if publishedOrigin != microseconds - time {
            publishedOrigin = microseconds - time
            timeOrigin.withLock { $0 = publishedOrigin }
        }
        if let lastTime, time <= lastTime { time = lastTime + 1 }
        lastTime = time
        var buffer = buffer
        buffer.timestamp = MediaTime(microseconds: time)
        return buffer
    }
}
