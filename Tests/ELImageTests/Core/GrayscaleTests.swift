import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Testing

/// BT.709 luma computed on the CPU, independently of the shader.
private func referenceGray(r: UInt8, g: UInt8, b: UInt8) -> Int {
    let red = 0.2126 * Double(r), green = 0.7152 * Double(g), blue = 0.0722 * Double(b)
    return Int((red + green + blue).rounded())
}

@Suite("Grayscale", .closesContexts)
struct GrayscaleTests {
    @Test("RGBA at an odd size with padded rows matches the CPU reference within 1 level",
          arguments: [(641, 479), (1, 1), (3, 2), (64, 64)])
    func paddedRGBA(width: Int, height: Int) async throws {
        let stride = width * 4 + 13 * 4  // 13 pixels of padding per row
        var pixels = randomBytes(stride * height, seed: UInt64(width * 31 + height))
        for y in 0..<height { pixels[y * stride + 3] = 200 }  // an alpha value to carry through
        let pipeline = try EmbeddedPipeline(context: TestContexts.make()) { $0 --> Grayscale() }
        try await pipeline.input.process(pixels, width: width, height: height, bytesPerRow: stride,
                                         format: .rgba, timestamp: MediaTime(value: 7, timescale: 25), on: pipeline.context)
        let leftovers = await pipeline.finish()
        #expect(leftovers.isEmpty, "\(leftovers)")

        let image = try #require(pipeline.output.received.first)
        #expect(image.width == width && image.height == height)
        #expect(image.timestamp == MediaTime(value: 7, timescale: 25))
        var worst = 0
        for y in 0..<height {
            for x in 0..<width {
                let offset = y * stride + x * 4
                let expected = referenceGray(r: pixels[offset], g: pixels[offset + 1], b: pixels[offset + 2])
                let got = image[x, y]
                worst = max(worst, abs(Int(got.x) - expected), abs(Int(got.y) - expected), abs(Int(got.z) - expected))
                if got.w != pixels[offset + 3] { worst = max(worst, 255) }
            }
        }
        #expect(worst <= 1, "largest difference from the reference: \(worst) levels")
    }

    @Test("BGRA with a stride that is not a whole number of pixels")
    func bgraOddStride() async throws {
        let context = try TestContexts.make()
        let (width, height, stride) = (37, 23, 37 * 4 + 3)
        let pixels = randomBytes(stride * height, seed: 99)
        let pipeline = try EmbeddedPipeline(context: context) { $0 --> Grayscale() }
        try await pipeline.input.process(pixels, width: width, height: height, bytesPerRow: stride,
                                         format: .bgra, timestamp: .zero, on: context)
        let image = try #require(pipeline.output.received.first)
        #expect(await pipeline.finish().isEmpty)
        for (x, y) in [(0, 0), (36, 0), (0, 22), (36, 22), (18, 11)] {
            let offset = y * stride + x * 4
            let expected = referenceGray(r: pixels[offset + 2], g: pixels[offset + 1], b: pixels[offset])
            #expect(abs(Int(image[x, y].x) - expected) <= 1, "pixel \(x),\(y)")
        }
    }

    @Test("8-bit gray input comes out unchanged")
    func grayInput() async throws {
        let context = try TestContexts.make()
        let (width, height, stride) = (33, 9, 40)
        let pixels = randomBytes(stride * height, seed: 5)
        let pipeline = try EmbeddedPipeline(context: context) { $0 --> Grayscale() }
        try await pipeline.input.process(pixels, width: width, height: height, bytesPerRow: stride,
                                         format: .gray8, timestamp: .zero, on: context)
        let image = try #require(pipeline.output.received.first)
        #expect(await pipeline.finish().isEmpty)
        var worst = 0
        for y in 0..<height {
            for x in 0..<width {
                worst = max(worst, abs(Int(image[x, y].x) - Int(pixels[y * stride + x])))
                #expect(image[x, y].w == 255)
            }
        }
        #expect(worst <= 1)
    }

    @Test("The bundled photo: every pixel within 1 level of the reference")
    func photo() async throws {
        let photo = try PNGFile.read(Repository.path("Examples/Media/astronaut.png"))
        let pipeline = try EmbeddedPipeline(context: TestContexts.make()) { $0 --> Grayscale() }
        let image = try await pipeline.render(photo)
        #expect(await pipeline.finish().isEmpty)
        var worst = 0
        for index in stride(from: 0, to: photo.pixels.count, by: 4) {
            let expected = referenceGray(r: photo.pixels[index], g: photo.pixels[index + 1], b: photo.pixels[index + 2])
            worst = max(worst, abs(Int(image.pixels[index]) - expected))
        }
        #expect(worst <= 1)
    }

    @Test("Bad input sizes and strides are errors that say what is wrong")
    func badInput() async throws {
        let pipeline = try EmbeddedPipeline(context: TestContexts.make()) { $0 --> Grayscale() }
        let (input, context) = (pipeline.input, pipeline.context)
        await #expect(throws: ELImageError.self) {
            try await input.process([UInt8](repeating: 0, count: 16), width: 0, height: 4, format: .rgba, timestamp: .zero, on: context)
        }
        do {
            try await input.process([UInt8](repeating: 0, count: 100), width: 10, height: 10, bytesPerRow: 20,
                                    format: .rgba, timestamp: .zero, on: context)
            Issue.record("a stride shorter than the row was accepted")
        } catch let error as ELImageError {
            #expect(error.description.contains("bytesPerRow 20 is shorter"))
        }
        do {
            try await input.process([UInt8](repeating: 0, count: 100), width: 10, height: 10,
                                    format: .rgba, timestamp: .zero, on: context)
            Issue.record("a short buffer was accepted")
        } catch let error as ELImageError {
            #expect(error.description.contains("needs 400"))
        }
        #expect(pipeline.output.count == 0)
        #expect(await pipeline.finish().isEmpty, "refused input leaves nothing behind")
    }
}
