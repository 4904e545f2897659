import ELImage
import Foundation

/// Progress on a terminal for long jobs (frames, fps, elapsed, ETA); silent when stderr is not a TTY.
final class Progress: Sendable {
    private let total: Int?
    private let start = ContinuousClock.now
    private let lastDraw = Locked(ContinuousClock.now - .seconds(1))
    private let enabled = isatty(STDERR_FILENO) == 1

    init(total: Int?) { self.total = total }

    func update(frames: Int) {
        let due = lastDraw.withLock { last in
            guard ContinuousClock.now - last > .milliseconds(200) else { return false }
            last = .now
            return true
        }
        guard enabled, due else { return }
        draw(frames: frames, final: false)
    }

    func finish(frames: Int) {
        if enabled { draw(frames: frames, final: true) }
    }

    private func draw(frames: Int, final: Bool) {
        let elapsed = Self.seconds(ContinuousClock.now - start)
        let fps = elapsed > 0 ? Double(frames) / elapsed : 0
        var line = String(format: "frames %d  %.1f fps  elapsed %.1fs", frames, fps, elapsed)
        if let total, !final, fps > 0, total > frames {
            line += String(format: "  ETA %.1fs", Double(total - frames) / fps)
        }
        FileHandle.standardError.write(Data(("\r" + line + (final ? "\n" : "")).utf8))
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
