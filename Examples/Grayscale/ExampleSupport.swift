import ELImage
import ELImageMedia
import Foundation
import Synchronization

/// Writes images as PNG: every one to `pattern` with a %d in it, else only the first.
final class PNGSequence: Sendable {
    let pattern: String
    private let written = Mutex(0)

    init(pattern: String) { self.pattern = pattern }

    var count: Int { written.withLock { $0 } }

    func write(_ image: RGBAImage) {
        let index = written.withLock { value in defer { value += 1 }; return value }
        guard pattern.contains("%") || index == 0 else { return }
        let path = pattern.contains("%") ? String(format: pattern, index) : pattern
        do { try PNGFile.write(image, to: path) } catch { print("grayscale: \(error)") }
    }
}

