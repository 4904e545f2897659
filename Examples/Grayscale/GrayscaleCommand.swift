// grayscale: a PNG photo -> Grayscale -> a PNG file.
//
//     swift run grayscale [INPUT.png] [-o OUTPUT.png]
//
// The graph:  RawDataInput --> Grayscale --> RawDataOutput
import ArgumentParser
import ELImage
import ELImageMedia
import Foundation

@main
struct GrayscaleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grayscale", abstract: "Turn a photo into gray on the GPU.")

    @Argument(help: "A PNG image (default: the bundled astronaut photo).")
    var input: String = BundledMedia.path("astronaut.png")

    @Option(name: .shortAndLong, help: "Where to write the gray PNG.")
    var output = "astronaut-gray.png"

    mutating func run() async throws {
        let photo = try PNGFile.read(input)
        let context = try RenderContext()

        let source = RawDataInput()
        let gray = Grayscale()
        let result = Result()
        source --> gray --> RawDataOutput { image in result.image = image }

        try await source.process(photo.pixels, width: photo.width, height: photo.height,
                                 format: .rgba, timestamp: .zero, on: context)
        guard let image = result.image else { throw ExitCode.failure }
        try PNGFile.write(image, to: output)
        print("Wrote \(image.width)x\(image.height) grayscale PNG to \(URL(fileURLWithPath: output).path)")
        print("Rendered with \(context.info.renderer) (\(context.info.platform))")
    }
}

/// Holds the image the sink hands over (the sink runs on the render thread, before `process` returns).
final class Result: @unchecked Sendable {
    var image: RGBAImage?
}

/// The media bundled with the examples, in the source tree.
enum BundledMedia {
    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Media/\(name)").path
    }
}
