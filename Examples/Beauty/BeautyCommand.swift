// beauty: any input → Beauty → PNG, with the before and after side by side.
//
//     swift run beauty [INPUT] [-o OUTPUT.png] [--strength 0.7]
//
// INPUT: /dev/videoN, a video file, .y4m or an image; without it the first camera, else the bundled
// portrait. The first frame is written, original on the left.
//
// The graph:  source --> Beauty --> RawDataOutput (after)
//                 └────────────────> RawDataOutput (before)       (fan-out)
import ArgumentParser
import ELImage
import ELImageMedia
import Foundation
import Synchronization

@main
struct BeautyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "beauty", abstract: "Smooth skin, keep its texture.")

    @Argument(help: "A camera, video file, Y4M file or image (default: the first camera, else the bundled portrait).")
    var input: String?

    @Option(name: .shortAndLong, help: "Where to write the before/after PNG.")
    var output = "beauty.png"

    @Option(help: "How strong, 0...1.")
    var strength: Float = 0.7

    mutating func run() async throws {
        let (input, strength) = (self.input, self.strength)
        // The context is closed when the scope ends (also on an error): every thread joined.
        let (original, smoothed) = try await withRenderContext { context in
            let source = try MediaSource.open(input, fallback: BundledMedia.path("grace_hopper.jpg"),
                                              options: .init(frames: 1), context: context)
            let before = Collected(), after = Collected()

            source.node --> Beauty(strength: strength) --> RawDataOutput { image in after.keep(image) }
            source.node --> RawDataOutput { image in before.keep(image) }

            try await source.run(on: context)
            return (before.image, after.image)
        }
        guard let original, let smoothed else { throw ValidationError("the input gave no frame") }
        try PNGFile.write(sideBySide(original, smoothed), to: output)
        print("Wrote before (left) and after (right) to \(URL(fileURLWithPath: output).path)")
    }

    /// Two images of one size next to each other.
    func sideBySide(_ left: RGBAImage, _ right: RGBAImage) -> RGBAImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(left.pixels.count * 2)
        for y in 0..<left.height {
            pixels += left.pixels[(y * left.bytesPerRow)..<((y + 1) * left.bytesPerRow)]
            pixels += right.pixels[(y * right.bytesPerRow)..<((y + 1) * right.bytesPerRow)]
        }
        return RGBAImage(width: left.width * 2, height: left.height, pixels: pixels)
    }
}


/// The last image a sink read back.
final class Collected: Sendable {
    private let last = Mutex<RGBAImage?>(nil)
    var image: RGBAImage? { last.withLock { $0 } }
    func keep(_ image: RGBAImage) { last.withLock { $0 = image } }
}
