import ELImage
import ELImageMedia
import Foundation
import Synchronization

/// Writes images as PNG: every one to a pattern with a number in it (`frame%03d.png`), else only the
/// first. The pattern is parsed by `NumberedFileName`, so no user text reaches `printf`.
final class PNGSequence: Sendable {
    let name: NumberedFileName
    private let written = Mutex(0)

    /// - Throws: `ELImageError.invalidInput` naming the pattern when it holds another conversion.
    init(pattern: String) throws {
        name = try NumberedFileName(pattern)
    }

    var count: Int { written.withLock { $0 } }

    func write(_ image: RGBAImage) {
        let index = written.withLock { value in defer { value += 1 }; return value }
        guard name.isNumbered || index == 0 else { return }
        do { try PNGFile.write(image, to: name.path(index: index)) } catch { print("grayscale: \(error)") }
    }
}

