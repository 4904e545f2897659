import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Exact convolution of `image` with a separable kernel (`weights[k]` at distance k, both sides),
/// repeating the border pixels; computed in Double, rows then columns, with no rounding between.
func separableConvolution(_ image: DoubleImage, weights: [Double]) -> DoubleImage {
    let radius = weights.count - 1
    let rows = DoubleImage.generate(width: image.width, height: image.height) { x, y in
        (-radius...radius).reduce(SIMD4<Double>.zero) { $0 + weights[abs($1)] * image[clamped: x + $1, y] }
    }
    return DoubleImage.generate(width: image.width, height: image.height) { x, y in
        (-radius...radius).reduce(SIMD4<Double>.zero) { $0 + weights[abs($1)] * rows[clamped: x, y + $1] }
    }
}

/// The Gaussian the filter documents: exp(-k² / 2σ²) for |k| <= ceil(3σ), normalised.
func gaussianWeights(sigma: Double) -> [Double] {
    let radius = max(1, Int((3 * sigma).rounded(.up)))
    let raw = (0...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
    let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
    return raw.map { $0 / total }
}

/// Exact 5x5 bilateral filter in Double.
func bilateralReference(_ image: DoubleImage, spatialSigma: Double, rangeSigma: Double) -> DoubleImage {
    DoubleImage.generate(width: image.width, height: image.height) { x, y in
        let center = image[clamped: x, y]
        var sum = SIMD4<Double>.zero, total = 0.0
        for dy in -2...2 {
            for dx in -2...2 {
                let neighbour = image[clamped: x + dx, y + dy]
                let difference = (neighbour - center) / 255
                let colourDistance = difference.x * difference.x + difference.y * difference.y + difference.z * difference.z
                let weight = exp(-Double(dx * dx + dy * dy) / (2 * spatialSigma * spatialSigma))
                    * exp(-colourDistance / (2 * rangeSigma * rangeSigma))
                sum += weight * neighbour
                total += weight
            }
        }
        return sum / total
    }
}

/// Exact 3x3 convolution with repeated borders.
func convolve3x3(_ image: DoubleImage, _ kernel: [[Double]]) -> DoubleImage {
    DoubleImage.generate(width: image.width, height: image.height) { x, y in
        var sum = SIMD4<Double>.zero
        for dy in -1...1 { for dx in -1...1 { sum += kernel[dy + 1][dx + 1] * image[clamped: x + dx, y + dy] } }
        return sum
    }
}

@Suite("Blur and edge filters", .closesContexts)
struct BlurFilterTests {
    static let noise = randomImage(width: 29, height: 23, seed: 31, randomAlpha: true)

    @Test("Gaussian blur equals the exact convolution within 2 levels", arguments: [0.5, 1.0, 2.0, 4.5, 32.0])
    func gaussian(sigma: Double) async throws {
        let result = try await render(Self.noise, through: GaussianBlur(sigma: Float(sigma)))
        expectClose(result, separableConvolution(DoubleImage(Self.noise), weights: gaussianWeights(sigma: sigma)),
                    "Gaussian sigma \(sigma)")
    }

    @Test("Kernels up to radius 16 read exact texels: within 1 level of the exact convolution (8-bit rounding between the passes), at the edges too")
    func exactTaps() async throws {
        let source = DoubleImage(Self.noise)
        for sigma in [2.0, 16.0 / 3] {
            let result = try await render(Self.noise, through: GaussianBlur(sigma: Float(sigma)))
            expectClose(result, separableConvolution(source, weights: gaussianWeights(sigma: sigma)), tolerance: 1, "Gaussian sigma \(sigma)")
        }
        #expect(gaussianWeights(sigma: 16.0 / 3).count == 17, "sigma 16/3 is the widest exact Gaussian, radius 16")
        let result = try await render(Self.noise, through: BoxBlur(radius: 16))
        expectClose(result, separableConvolution(source, weights: Array(repeating: 1.0 / 33, count: 17)), tolerance: 1, "box radius 16")
    }

    @Test("Gaussian blur of the photo (face crop), sigma 2.5")
    func gaussianPhoto() async throws {
        let face = try Photos.astronautFace()
        let result = try await render(face, through: GaussianBlur(sigma: 2.5))
        expectClose(result, separableConvolution(DoubleImage(face), weights: gaussianWeights(sigma: 2.5)), "Gaussian on the photo")
    }

    @Test("Box blur equals the exact box mean within 2 levels", arguments: [1, 2, 5, 127])
    func box(radius: Int) async throws {
        let result = try await render(Self.noise, through: BoxBlur(radius: radius))
        let weights = Array(repeating: 1 / Double(2 * radius + 1), count: radius + 1)
        expectClose(result, separableConvolution(DoubleImage(Self.noise), weights: weights), "box radius \(radius)")
    }

    @Test("Box blur of the photo (face crop), radius 3")
    func boxPhoto() async throws {
        let face = try Photos.astronautFace()
        let result = try await render(face, through: BoxBlur(radius: 3))
        expectClose(result, separableConvolution(DoubleImage(face), weights: Array(repeating: 1.0 / 7, count: 4)), "box on the photo")
    }

    @Test("Identity settings return the input unchanged: sigma 0, radius 0, sharpen 0")
    func identities() async throws {
        #expect(try await render(Self.noise, through: GaussianBlur(sigma: 0)) == Self.noise)
        #expect(try await render(Self.noise, through: BoxBlur(radius: 0)) == Self.noise)
        expectClose(try await render(Self.noise, through: Sharpen(amount: 0)), DoubleImage(Self.noise), tolerance: 1, "sharpen 0")
    }

    @Test("5x5 bilateral blur equals the exact bilateral filter within 2 levels",
          arguments: [(2.0, 0.1), (1.0, 10.0), (3.0, 0.02), (0.1, 0.3)])
    func bilateral(spatial: Double, range: Double) async throws {
        let filter = BilateralBlur(spatialSigma: Float(spatial), rangeSigma: Float(range))
        let result = try await render(Self.noise, through: filter)
        expectClose(result, bilateralReference(DoubleImage(Self.noise), spatialSigma: spatial, rangeSigma: range),
                    "bilateral \(spatial), \(range)")
    }

    @Test("An opaque picture (RGB without alpha, as from Y'CbCr) takes the bilateral pass that leaves alpha out: the exact filter's colour, alpha 1, the same pixels as the full pass of the same picture with alpha",
          arguments: [(2.0, 0.1), (3.0, 0.02)])
    func bilateralOpaque(spatial: Double, range: Double) async throws {
        let context = try TestContexts.make()
        let image = randomImage(width: 29, height: 23, seed: 7)  // alpha 255 everywhere
        let rgb = stride(from: 0, to: image.pixels.count, by: 4).flatMap { image.pixels[$0..<($0 + 3)] }
        let input = RawDataInput()
        let (collector, _) = imageCollector()
        let filter = BilateralBlur(spatialSigma: Float(spatial), rangeSigma: Float(range))
        final class OpacityRecorder: ImageInput, @unchecked Sendable {
            let inputSlots = InputSlots()
            let opaque = Collector<Bool>()
            func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
                opaque.append(frame.isOpaque)
            }
            func endOfStream(at index: Int, in context: isolated RenderContext) {}
        }
        let recorder = OpacityRecorder()
        input --> filter --> collector
        filter --> recorder
        try await input.process(try PixelBuffer(format: .rgb24, width: 29, height: 23, data: rgb, colorSpace: .srgb), on: context)
        let opaque = try #require(collector.values.first)
        #expect(recorder.opaque.values == [true], "an RGB24 picture is opaque, and so is its blur")
        expectClose(opaque, bilateralReference(DoubleImage(image), spatialSigma: spatial, rangeSigma: range),
                    "opaque bilateral \(spatial), \(range)")
        // The RGBA upload of the same pixels is not known to be opaque: the full pass, the same result.
        let full = try await render(image, through: BilateralBlur(spatialSigma: Float(spatial), rangeSigma: Float(range)),
                                    on: context)
        #expect(full == opaque)
        filter.removeAllTargets()
        input.removeAllTargets()
    }

    @Test("Bilateral blur of the photo (face crop)")
    func bilateralPhoto() async throws {
        let face = try Photos.astronautFace()
        let result = try await render(face, through: BilateralBlur(spatialSigma: 2, rangeSigma: 0.08))
        expectClose(result, bilateralReference(DoubleImage(face), spatialSigma: 2, rangeSigma: 0.08), "bilateral on the photo")
    }

    @Test("Sharpen equals colour + amount (colour - [1 2 1]²/16 blur) within 2 levels", arguments: [0.5, 1.5, 4.0])
    func sharpen(amount: Double) async throws {
        let kernel = [[1.0, 2, 1], [2, 4, 2], [1, 2, 1]].map { $0.map { $0 / 16 } }
        for image in [Self.noise, try Photos.astronautFace()] {
            let result = try await render(image, through: Sharpen(amount: Float(amount)))
            let source = DoubleImage(image), blurred = convolve3x3(source, kernel)
            let reference = DoubleImage(width: image.width, height: image.height, values: zip(source.values, blurred.values).map { s, b in
                SIMD4(s.x + amount * (s.x - b.x), s.y + amount * (s.y - b.y), s.z + amount * (s.z - b.z), s.w)
            })
            expectClose(result, reference, "sharpen \(amount), \(image.width)x\(image.height)")
        }
    }

    @Test("Sobel edges equal the Sobel magnitude of the BT.709 luma within 2 levels", arguments: [0.25, 1.0, 0.0])
    func sobel(strength: Double) async throws {
        for image in [Self.noise, try Photos.astronautFace()] {
            let result = try await render(image, through: SobelEdges(strength: Float(strength)))
            let source = DoubleImage(image)
            let luma = source.map { p in let l = bt709Luma(p); return SIMD4(l, l, l, p.w) }
            let gx = convolve3x3(luma, [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
            let gy = convolve3x3(luma, [[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
            let reference = DoubleImage(width: image.width, height: image.height, values: (0..<source.values.count).map { index in
                let magnitude = (gx.values[index].x * gx.values[index].x + gy.values[index].x * gy.values[index].x).squareRoot() * strength
                return SIMD4(magnitude, magnitude, magnitude, source.values[index].w)
            })
            expectClose(result, reference, "Sobel \(strength), \(image.width)x\(image.height)")
        }
    }

    @Test("Bad blur parameters are clamped; NaN means the neutral value")
    func badParameters() async throws {
        #expect(GaussianBlur(sigma: .nan).sigma == 0)
        #expect(GaussianBlur(sigma: -3).sigma == 0)
        #expect(GaussianBlur(sigma: .infinity).sigma == GaussianBlur.maximumSigma)
        #expect(BoxBlur(radius: -4).radius == 0)
        #expect(BoxBlur(radius: 100_000).radius == BoxBlur.maximumRadius)
        #expect(BilateralBlur(spatialSigma: .nan, rangeSigma: 0).spatialSigma == 2)
        #expect(BilateralBlur(spatialSigma: .nan, rangeSigma: 0).rangeSigma == 0.01)
        #expect(Sharpen(amount: .nan).amount == 0)
        #expect(SobelEdges(strength: -1).strength == 0)
        // NaN range sigma falls back to 0.1, and the picture is the reference's, not NaN garbage.
        let filter = BilateralBlur(spatialSigma: 2, rangeSigma: .nan)
        let result = try await render(Self.noise, through: filter)
        expectClose(result, bilateralReference(DoubleImage(Self.noise), spatialSigma: 2, rangeSigma: 0.1), "bilateral NaN range")
    }
}
