import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// Pixels as Doubles in 0...255, RGBA per pixel: what CPU references compute on.
struct DoubleImage {
    var width: Int
    var height: Int
    var values: [SIMD4<Double>]

    init(width: Int, height: Int, values: [SIMD4<Double>]) {
        self.width = width
        self.height = height
        self.values = values
    }

    init(_ image: RGBAImage) {
        width = image.width
        height = image.height
        values = (0..<(image.width * image.height)).map { index in
            let offset = index * 4
            return SIMD4(Double(image.pixels[offset]), Double(image.pixels[offset + 1]),
                         Double(image.pixels[offset + 2]), Double(image.pixels[offset + 3]))
        }
    }

    /// The pixel at (x, y) with coordinates clamped to the picture (repeated edges).
    subscript(clamped x: Int, _ y: Int) -> SIMD4<Double> {
        values[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)]
    }

    /// Applies `transform` to every pixel.
    func map(_ transform: (SIMD4<Double>) -> SIMD4<Double>) -> DoubleImage {
        DoubleImage(width: width, height: height, values: values.map(transform))
    }

    /// Builds an image from a function of the pixel position.
    static func generate(width: Int, height: Int, _ pixel: (Int, Int) -> SIMD4<Double>) -> DoubleImage {
        var values: [SIMD4<Double>] = []
        values.reserveCapacity(width * height)
        for y in 0..<height { for x in 0..<width { values.append(pixel(x, y)) } }
        return DoubleImage(width: width, height: height, values: values)
    }
}

/// Rounds and clamps a reference value to what an 8-bit frame can hold.
func level(_ value: Double) -> Double { min(max(value.rounded(), 0), 255) }

/// Clamps each channel to 0...255, as writing to an 8-bit frame does.
func clamped(_ value: SIMD4<Double>) -> SIMD4<Double> {
    SIMD4(min(max(value.x, 0), 255), min(max(value.y, 0), 255), min(max(value.z, 0), 255), min(max(value.w, 0), 255))
}

/// The largest difference in levels between `image` and `reference` over all channels, and where.
func worstDifference(_ image: RGBAImage, _ reference: DoubleImage, channels: Int = 4) -> (levels: Double, x: Int, y: Int) {
    var worst = (levels: 0.0, x: 0, y: 0)
    guard image.width == reference.width, image.height == reference.height else { return (999, -1, -1) }
    for y in 0..<image.height {
        for x in 0..<image.width {
            let got = image[x, y]
            let expected = clamped(reference.values[y * image.width + x])
            for channel in 0..<channels {
                let difference = abs(Double(got[channel]) - expected[channel])
                if difference > worst.levels { worst = (difference, x, y) }
            }
        }
    }
    return worst
}

/// Expects every channel of `image` within `tolerance` levels of `reference`.
func expectClose(_ image: RGBAImage, _ reference: DoubleImage, tolerance: Double = 2, channels: Int = 4,
                 _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(image.width == reference.width && image.height == reference.height,
            "\(what): size \(image.width)x\(image.height), expected \(reference.width)x\(reference.height)",
            sourceLocation: sourceLocation)
    let worst = worstDifference(image, reference, channels: channels)
    #expect(worst.levels <= tolerance,
            "\(what): \(worst.levels) levels off at (\(worst.x), \(worst.y)): got \(image[max(0, worst.x), max(0, worst.y)]), expected \(clamped(reference[clamped: worst.x, worst.y]))",
            sourceLocation: sourceLocation)
}

/// A random RGBA image; opaque unless `randomAlpha`.
func randomImage(width: Int, height: Int, seed: UInt64, randomAlpha: Bool = false) -> RGBAImage {
    var pixels = randomBytes(width * height * 4, seed: seed)
    if !randomAlpha { for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 } }
    return RGBAImage(width: width, height: height, pixels: pixels)
}

/// A part of `image`.
func crop(_ image: RGBAImage, x: Int, y: Int, width: Int, height: Int) -> RGBAImage {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(width * height * 4)
    for row in y..<(y + height) {
        let start = (row * image.width + x) * 4
        pixels += image.pixels[start..<(start + width * 4)]
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
}

/// The bundled test pictures.
enum Photos {
    /// Examples/Media/astronaut.png, 512x512.
    static func astronaut() throws -> RGBAImage {
        try PNGFile.read(Repository.path("Examples/Media/astronaut.png"))
    }

    /// Examples/Media/grace_hopper.jpg, 512x600, decoded by ffmpeg.
    static func graceHopper() throws -> RGBAImage {
        let data = try runTool("ffmpeg", ["-v", "error", "-i", Repository.path("Examples/Media/grace_hopper.jpg"),
                                          "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        return RGBAImage(width: 512, height: 600, pixels: [UInt8](data))
    }

    /// A PNG (read directly) or any picture ffmpeg decodes (its size from ffprobe).
    static func decode(_ path: String) throws -> RGBAImage {
        if path.hasSuffix(".png") { return try PNGFile.read(path) }
        let size = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                            "stream=width,height", "-of", "csv=p=0:s=x", path]), as: UTF8.self)
        let parts = size.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else { throw ToolFailure(tool: "ffprobe", status: 0, message: "no picture size for \(path): '\(size)'") }
        let data = try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        return RGBAImage(width: parts[0], height: parts[1], pixels: [UInt8](data))
    }

    /// A 96x96 part of the astronaut photo around the face, for references that cost per pixel.
    static func astronautFace() throws -> RGBAImage {
        crop(try astronaut(), x: 176, y: 56, width: 96, height: 96)
    }
}

/// Sends `image` through `filter` in an `EmbeddedPipeline` and returns the frame that came out. On
/// `context`, the filter is taken off the pipeline afterwards and no end-of-stream is sent (a
/// filter's state goes on), and no failure may have been recorded. Without one, the pipeline has a
/// context of its own and ends with `finish()` (`endCleanly`).
func render(_ image: RGBAImage, through filter: some ImageOutput & ImageInput,
            on context: RenderContext? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> RGBAImage {
    if let context {  // the caller's context, which goes on: no failure may have been recorded
        let pipeline = try EmbeddedPipeline(context: context) { $0 --> filter }
        defer { pipeline.disconnect() }
        let frame = try await pipeline.render(image)
        #expect(pipeline.failures.all.isEmpty, "\(pipeline.failures.all)", sourceLocation: sourceLocation)
        return frame
    }
    let pipeline = try EmbeddedPipeline(context: RenderContext()) { $0 --> filter }
    return try await endCleanly(pipeline, sourceLocation: sourceLocation) { try await $0.render(image) }
}

/// Runs `work` on `pipeline`, then ends it with `finish()` (also when `work` throws), which must
/// find no failure recorded and no thread running. Textures still in use are not counted against
/// the filter here: those a filter keeps across streams (a lookup table, a skin model, a background
/// picture) are not told apart from a leaked frame by a single frame's run. The conformance suite
/// tells them apart by running more frames (`FilterConformanceTests.noTextureGrowth`).
func endCleanly<Result>(_ pipeline: EmbeddedPipeline, sourceLocation: SourceLocation = #_sourceLocation,
                        _ work: (EmbeddedPipeline) async throws -> Result) async throws -> Result {
    let outcome: Swift.Result<Result, any Error>
    do { outcome = .success(try await work(pipeline)) } catch { outcome = .failure(error) }
    let leftovers = await pipeline.finish()
    #expect(leftovers.failures.isEmpty, "\(leftovers)", sourceLocation: sourceLocation)
    #expect(leftovers.threadsRunning.isEmpty && leftovers.threadsAfterClose.isEmpty, "\(leftovers)", sourceLocation: sourceLocation)
    return try outcome.get()
}

/// Sends `top` (input 1) and then `base` (input 0) through a two-input filter in an
/// `EmbeddedPipeline` and returns the blended frame.
func render(base: RGBAImage, top: RGBAImage, through filter: some ImageOutput & ImageInput,
            sourceLocation: SourceLocation = #_sourceLocation) async throws -> RGBAImage {
    let pipeline = try EmbeddedPipeline(context: RenderContext()) { $0 --> filter }
    let topInput = RawDataInput()
    topInput --> filter
    defer { topInput.removeAllTargets() }
    return try await endCleanly(pipeline, sourceLocation: sourceLocation) { pipeline in
        try await pipeline.send(top, via: topInput)
        return try await pipeline.render(base)
    }
}
