// beauty: any input → Beauty → PNG, with the before and after side by side.
//
//     swift run beauty [INPUT] [-o OUTPUT.png] [--strength 0.7] [--mask]
//
// INPUT: /dev/videoN, a video file, .y4m or an image; without it the first camera, else the bundled
// portrait. The first frame is written, original on the left; --mask adds the skin mask on the right.
//
// The graph:  source --> Beauty --> RawDataOutput (after)
//                 ├────────────────> RawDataOutput (before)       (fan-out)
//                 └─> Beauty (showsSkinMask) --> RawDataOutput (mask, with --mask)
import ArgumentParser
import ELImage
import ELImageKit
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

    @Flag(help: "Add the skin mask (white = smoothed as skin) as a third picture.")
    var mask = false

    mutating func run() async throws {
        let (input, strength, withMask) = (self.input, self.strength, self.mask)
        // The context is closed when the scope ends (also on an error): every thread joined.
        let (original, smoothed, skin) = try await withRenderContext { context in
            let source = try MediaSource.open(input, fallback: BundledMedia.path("grace_hopper.jpg"),
                                              options: .init(frames: 1))
            let before = Collected(), after = Collected(), mask = Collected()

            // Each output reads its frames back on a worker thread and hands them to its closure there.
            var outputs = [RawDataOutput { image in after.keep(image) }, RawDataOutput { image in before.keep(image) }]
            source.node --> Beauty(strength: strength) --> outputs[0]
            source.node --> outputs[1]
            if withMask {
                let maskBeauty = Beauty(strength: strength)
                maskBeauty.showsSkinMask = true
                outputs.append(RawDataOutput { image in mask.keep(image) })
                source.node --> maskBeauty --> outputs[2]
            }

            try await source.run(on: context)
            for output in outputs { try await output.finish() }
            return (before.image, after.image, mask.image)
        }
        guard let original, let smoothed else { throw ValidationError("the input gave no frame") }
        try PNGFile.write(sideBySide([original, smoothed] + (skin.map { [$0] } ?? [])), to: output)
        print("Wrote before (left), after\(skin == nil ? " (right)" : " and the skin mask (right)") to \(URL(fileURLWithPath: output).path)")
    }

    /// Images of one size next to each other.
    func sideBySide(_ images: [RGBAImage]) -> RGBAImage {
        guard let first = images.first else { return RGBAImage(width: 0, height: 0, pixels: []) }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(first.pixels.count * images.count)
        for y in 0..<first.height {
            for image in images { pixels += image.pixels[(y * image.bytesPerRow)..<((y + 1) * image.bytesPerRow)] }
        }
        return RGBAImage(width: first.width * images.count, height: first.height, pixels: pixels)
    }
}


/// The last image a sink read back.
final class Collected: Sendable {
    private let last = Mutex<RGBAImage?>(nil)
    var image: RGBAImage? { last.withLock { $0 } }
    func keep(_ image: RGBAImage) { last.withLock { $0 = image } }
}
