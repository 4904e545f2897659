import ELImage
import ELImageDetection
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation

/// Runs pictures through a `DetectorOutput` in an `EmbeddedPipeline` (waiting for the detector, so
/// every picture is analysed) and returns the metadata of each, in order.
func detect(_ images: [RGBAImage], with detector: any MetadataDetector,
            analysisSize: (width: Int, height: Int)? = nil) async throws -> [Metadata] {
    let found = Collector<Metadata>()
    let output = try DetectorOutput(detector: detector, settings: .init(analysisSize: analysisSize, waitsForDetector: true)) {
        found.append($0)
    }
    let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: output)
    for (index, image) in images.enumerated() {
        var image = image
        image.timestamp = MediaTime(frame: Int64(index), framesPerSecond: 25)
        try await pipeline.send(image)
    }
    await output.close()
    return found.values
}

/// A picture file (PNG or JPEG) as RGBA.
func picture(_ path: String) throws -> RGBAImage {
    path.lowercased().hasSuffix(".png") ? try PNGFile.read(path) : try JPEGFile.read(path)
}

/// The picture a command line (ffmpeg, zint, qrencode) wrote to `name` in `folder`.
func generatedPicture(_ tool: String, _ arguments: [String], in folder: TemporaryFolder, name: String) throws -> RGBAImage {
    try runTool(tool, arguments)
    return try picture(folder.path(name))
}

/// `image` placed at (`x`, `y`) on a `width`×`height` canvas of `fill` (parts outside are cut).
func composed(_ image: RGBAImage, at x: Int, _ y: Int, canvas width: Int, _ height: Int,
              fill: SIMD4<UInt8> = [128, 128, 128, 255]) -> RGBAImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for offset in stride(from: 0, to: pixels.count, by: 4) {
        pixels[offset] = fill.x
        pixels[offset + 1] = fill.y
        pixels[offset + 2] = fill.z
        pixels[offset + 3] = fill.w
    }
    for row in 0..<image.height where (0..<height).contains(y + row) {
        for column in 0..<image.width where (0..<width).contains(x + column) {
            let from = (row * image.width + column) * 4, to = ((y + row) * width + x + column) * 4
            for channel in 0..<4 { pixels[to + channel] = image.pixels[from + channel] }
        }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
}
