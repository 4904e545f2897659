import ELImage
import Foundation

/// One refreshing progress line on a terminal, as ffmpeg prints one: frames, frames a second, the
/// time of video written, the speed against real time, the frames repeated and dropped so far, and
/// the time left when the length is known. Silent when standard error is not a terminal (a pipe,
/// a file, a test).
final class Progress: Sendable {
    private let total: Int?
    /// Frames a second of the output, for the time of video written.
    private let frameRate: Double
    private let start = ContinuousClock.now
    private let lastDraw = Locked(ContinuousClock.now - .seconds(1))
    private let enabled = isatty(STDERR_FILENO) == 1
    /// The frames repeated and dropped so far, on the way to the output (`follow`).
    private let losses = Locked<(@Sendable () -> (repeated: Int, dropped: Int))?>(nil)

    init(total: Int?, frameRate: Double) {
        self.total = total
        self.frameRate = frameRate
    }

    /// Counts the repeats and drops of `hops` (read as the line is drawn), once the graph is made.
    func follow(_ hops: @escaping @Sendable () -> [FrameHop]) {
        losses.withLock {
            $0 = {
                let now = hops()
                return (now.reduce(0) { $0 + $1.repeated }, now.reduce(0) { $0 + $1.dropped })
            }
        }
    }

    func update(frames: Int) {
        guard enabled else { return }
        let due = lastDraw.withLock { last in
            guard ContinuousClock.now - last > .milliseconds(200) else { return false }
            last = .now
            return true
        }
        guard due else { return }
        let counts = losses.withLock { $0 }?()
        FileHandle.standardError.write(Data(("\r" + line(frames: frames, elapsed: ContinuousClock.now - start, final: false,
                                                         repeated: counts?.repeated ?? 0, dropped: counts?.dropped ?? 0)).utf8))
    }

    func finish(frames: Int) {
        guard enabled else { return }
        let counts = losses.withLock { $0 }?()
        FileHandle.standardError.write(Data(("\r" + line(frames: frames, elapsed: ContinuousClock.now - start, final: true,
                                                         repeated: counts?.repeated ?? 0, dropped: counts?.dropped ?? 0) + "\n").utf8))
    }

    /// `frame=  120 fps= 45.2 time=00:00:04.800 speed=1.81x ETA 3.1s`, with `dup=2 drop=73` after
    /// the speed once a frame was repeated or dropped (as ffmpeg).
    func line(frames: Int, elapsed: Duration, final: Bool, repeated: Int = 0, dropped: Int = 0) -> String {
        let seconds = Self.seconds(elapsed)
        let fps = seconds > 0 ? Double(frames) / seconds : 0
        let video = frameRate > 0 ? Double(frames) / frameRate : 0
        var line = String(format: "frame=%5d fps=%5.1f time=%@ speed=%.2fx", frames, fps, Self.clock(video),
                          seconds > 0 ? video / seconds : 0)
        if repeated > 0 || dropped > 0 { line += " dup=\(repeated) drop=\(dropped)" }
        if let total, !final, fps > 0, total > frames {
            line += String(format: " ETA %.1fs", Double(total - frames) / fps)
        }
        return line + "   "  // clears what a longer line before left
    }

    /// `HH:MM:SS.mmm`.
    static func clock(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", milliseconds / 3_600_000, milliseconds / 60_000 % 60,
                      milliseconds / 1000 % 60, milliseconds % 1000)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Messages for the user on standard output, or on standard error while standard output carries
/// data (detections as JSON Lines).
enum Terminal {
    static let standardOutputIsData = Locked(false)

    static func say(_ text: String) {
        if standardOutputIsData.withLock({ $0 }) {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        } else {
            // Line by line also into a file or a pipe: a script waiting for a line (the PID to
            // signal) gets it when it is said, not when the run ends.
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }
}
