import ELImage
import ELImageMedia
import Foundation
import Synchronization

/// A sound card whose clock runs `ppm` parts per million off, feeding a PulseAudio
/// `module-pipe-source` through its FIFO: mono 16-bit samples at a nominal 48 kHz, written at
/// 48,000 × (1 + ppm/10⁶) samples per real (monotonic) second, in 10 ms periods as an ADC would
/// hand them over. Silence, except a 20 ms 1 kHz burst ("click") starting at every whole real
/// second since `epoch`: click k starts at sample round(k × true rate), captured at
/// `epoch + k` seconds.
final class DriftingSoundWriter: @unchecked Sendable {
    // @unchecked Sendable: `stopping` is atomic; the descriptor is used by the writer thread only.
    static let nominalRate = 48_000
    static let clickSamples = 960
    static let clickAmplitude = 0.5

    /// Samples per real second.
    let trueRate: Double
    /// The monotonic time (microseconds) sample 0 was captured.
    private(set) var epoch: Int64 = 0
    private let descriptor: Int32
    private let stopping = Atomic<Bool>(false)
    private var thread: JoinableThread?

    /// Opens the source's FIFO at `path` (the pipe source already holds it open).
    init(fifo path: String, ppm: Double) throws(SoakFailure) {
        trueRate = Double(Self.nominalRate) * (1 + ppm / 1_000_000)
        descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SoakFailure("cannot open the pipe source's FIFO \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// Starts writing on its own thread; sample 0 is captured now.
    func start() throws(SoakFailure) {
        epoch = MediaClock.nowMicroseconds()
        let thread = JoinableThread(name: "ELImage.soak-sound", group: nil) { [self] in run() }
        self.thread = thread
        do { try thread.start() } catch { throw SoakFailure("cannot start the sound writer thread: \(error)") }
    }

    /// Stops writing and joins the thread.
    func stop() async {
        stopping.store(true, ordering: .releasing)
        await thread?.join()
    }

    /// The monotonic time (microseconds) click `k` (k ≥ 1) was captured, and its first sample.
    func click(_ k: Int) -> (captured: Int64, sample: Int64) {
        let sample = Int64((Double(k) * trueRate).rounded())
        return (epoch + Int64((Double(sample) / trueRate * 1_000_000).rounded()), sample)
    }

    private func run() {
        var count: Int64 = 0
        var block: [Int16] = []
        while !stopping.load(ordering: .acquiring) {
            let elapsed = Double(MediaClock.nowMicroseconds() - epoch) / 1_000_000
            let due = Int64(elapsed * trueRate)
            if due > count {
                block.removeAll(keepingCapacity: true)
                for sample in count..<due { block.append(value(at: sample)) }
                let ok = block.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress else { return true }
                    var offset = 0
                    while offset < bytes.count {
                        let result = write(descriptor, base + offset, bytes.count - offset)
                        if result < 0 {
                            if errno == EINTR { continue }
                            return false
                        }
                        offset += result
                    }
                    return true
                }
                guard ok else { return }  // the server went away: the recording says so
                count = due
            }
            usleep(10_000)
        }
    }

    /// Sample `n`: inside a click, the 1 kHz burst; silence elsewhere.
    private func value(at n: Int64) -> Int16 {
        let k = Int((Double(n) / trueRate).rounded(.down))
        for candidate in [k, k + 1] where candidate >= 1 {
            let start = Int64((Double(candidate) * trueRate).rounded())
            if n >= start, n < start + Int64(Self.clickSamples) {
                let phase = Double(n - start) / Double(Self.nominalRate) * 1000 * 2 * Double.pi
                return Int16((sin(phase) * Self.clickAmplitude * 32_767).rounded())
            }
        }
        return 0
    }
}
