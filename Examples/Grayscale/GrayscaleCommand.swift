// grayscale: any input → Grayscale → PNG files.
//
//     swift run grayscale [INPUT] [-o OUTPUT.png] [--frames N]
//
// INPUT: /dev/videoN, a video file, .y4m or an image; without it the first camera, else the bundled
// photo. With a %d in OUTPUT every frame is written (frame%03d.png), else the first.
//
// The graph:  source --> Grayscale --> RawDataOutput (→ PNG)
import ArgumentParser
import ELImage
import ELImageKit
import ELImageMedia
import Foundation

@main
struct GrayscaleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "grayscale", abstract: "Turn pictures gray on the GPU.")

    @Argument(help: "A camera, video file, Y4M file or image (default: the first camera, else the bundled photo).")
    var input: String?

    @Option(name: .shortAndLong, help: "Where to write the PNG (use %d for every frame).")
    var output = "gray.png"

    @Option(help: "How many frames to process.")
    var frames = 1

    mutating func run() async throws {
        let (input, output, frames) = (self.input, self.output, self.frames)
        // The context is closed when the scope ends (also on an error): every thread joined.
        try await withRenderContext { context in
            let source = try MediaSource.open(input, fallback: BundledMedia.path("astronaut.png"),
                                              options: .init(frames: frames))
            let writer = try PNGSequence(pattern: output)

            // The frames are read back and handed to the closure on the output's worker thread.
            let frames = RawDataOutput { image in writer.write(image) }
            source.node --> Grayscale() --> frames

            try await source.run(on: context)
            try await frames.finish()  // every frame the source sent is written
            print("Wrote \(writer.count) gray frame(s) to \(URL(fileURLWithPath: output).path)")
            print("Rendered with \(context.info.renderer) (\(context.info.platform))")
        }
    }
}
