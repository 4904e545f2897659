import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// GL's bilinear sample with repeated edges at input pixel position (px, py) (pixel centres at +0.5).
func bilinear(_ image: DoubleImage, _ px: Double, _ py: Double) -> SIMD4<Double> {
    let u = px - 0.5, v = py - 0.5
    let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
    let fx = u - Double(x0), fy = v - Double(y0)
    let top = image[clamped: x0, y0] * (1 - fx) + image[clamped: x0 + 1, y0] * fx
    let bottom = image[clamped: x0, y0 + 1] * (1 - fx) + image[clamped: x0 + 1, y0 + 1] * fx
    return top * (1 - fy) + bottom * fy
}

@Suite("Crop and transform", .closesContexts)
struct GeometryFilterTests {
    static let noise = randomImage(width: 23, height: 14, seed: 41, randomAlpha: true)

    @Test("Crop copies the rectangle exactly", arguments: [(0, 0, 23, 14), (3, 2, 10, 7), (22, 13, 1, 1), (5, 0, 18, 14)])
    func crop(x: Int, y: Int, width: Int, height: Int) async throws {
        let result = try await render(Self.noise, through: Crop(Crop.Region(x: x, y: y, width: width, height: height)))
        let source = DoubleImage(Self.noise)
        expectClose(result, DoubleImage.generate(width: width, height: height) { source[clamped: x + $0, y + $1] },
                    tolerance: 0, "crop \(x),\(y) \(width)x\(height)")
    }

    @Test("A crop reaching outside the input is clamped to it; one entirely outside keeps the nearest pixel")
    func cropOutside() async throws {
        let source = DoubleImage(Self.noise)
        let partly = try await render(Self.noise, through: Crop(Crop.Region(x: -5, y: 10, width: 12, height: 40)))
        expectClose(partly, DoubleImage.generate(width: 7, height: 4) { source[clamped: $0, 10 + $1] }, tolerance: 0, "clamped crop")
        let outside = try await render(Self.noise, through: Crop(Crop.Region(x: 100, y: -50, width: 0, height: -3)))
        expectClose(outside, DoubleImage.generate(width: 1, height: 1) { _, _ in source[clamped: 22, 0] }, tolerance: 0, "outside")
    }

    @Test("A crop holding the whole picture and a scale to its own size hand the frame on: the same pixels, one draw fewer than a crop that cuts or a scale that resizes")
    func passingOn() async throws {
        let context = try TestContexts.make()
        func run(_ filter: some ImageOutput & ImageInput) async throws -> (image: RGBAImage, draws: Int) {
            let before = await context.drawCallCount
            let image = try await render(Self.noise, through: filter, on: context)
            return (image, await context.drawCallCount - before)
        }
        let cut = try await run(Crop(Crop.Region(x: 1, y: 0, width: 22, height: 14)))
        #expect((cut.image.width, cut.image.height) == (22, 14))
        let resized = try await run(Passthrough(outputSize: (12, 7)))
        #expect((resized.image.width, resized.image.height) == (12, 7))
        #expect(resized.draws == cut.draws)
        let keeping: [(String, any ImageOutput & ImageInput)] = [
            ("crop of more than the picture", Crop(Crop.Region(x: 0, y: 0, width: 16384, height: 16384))),
            ("crop of exactly the picture", Crop(Crop.Region(x: 0, y: 0, width: 23, height: 14))),
            ("scale to the input's size", Passthrough()),
            ("scale to the same size, given", Passthrough(outputSize: (23, 14))),
        ]
        for (name, filter) in keeping {
            let kept = try await run(filter)
            #expect(kept.image == Self.noise, "\(name)")
            #expect(kept.draws == cut.draws - 1, "\(name): \(kept.draws) draws, a cut \(cut.draws)")
        }
    }

    @Test("Crop of the photo: the face")
    func cropPhoto() async throws {
        let photo = try Photos.astronaut()
        let result = try await render(photo, through: Crop(Crop.Region(x: 176, y: 56, width: 96, height: 96)))
        #expect(result == (try Photos.astronautFace()))
    }

    @Test("Flips mirror exactly")
    func flips() async throws {
        let source = DoubleImage(Self.noise)
        var settings = Transform.Settings()
        settings.flipHorizontal = true
        expectClose(try await render(Self.noise, through: Transform(settings)),
                    DoubleImage.generate(width: 23, height: 14) { source[clamped: 22 - $0, $1] }, tolerance: 0, "horizontal flip")
        settings.flipVertical = true
        expectClose(try await render(Self.noise, through: Transform(settings)),
                    DoubleImage.generate(width: 23, height: 14) { source[clamped: 22 - $0, 13 - $1] }, tolerance: 0, "both flips")
    }

    @Test("Rotating by a quarter turn into a swapped size moves every pixel exactly (counter-clockwise)")
    func quarterTurn() async throws {
        let source = DoubleImage(Self.noise)
        var settings = Transform.Settings()
        settings.rotation = .pi / 2
        settings.outputWidth = 14
        settings.outputHeight = 23
        let result = try await render(Self.noise, through: Transform(settings))
        // Counter-clockwise: the input's right column becomes the output's top row.
        expectClose(result, DoubleImage.generate(width: 14, height: 23) { x, y in source[clamped: 22 - y, x] },
                    tolerance: 0, "quarter turn")
    }

    @Test("Scale, rotation and translation match bilinear sampling of the inverse mapping within 2 levels",
          arguments: [(2.0, 1.5, 0.0, 0.0, 0.0), (0.5, 0.5, 0.0, 3.0, -2.25), (1.3, 0.8, 0.5236, 1.5, 0.0), (-1.0, 1.0, 2.5, 0.0, 0.0)])
    func affine(scaleX: Double, scaleY: Double, rotation: Double, tx: Double, ty: Double) async throws {
        let source = DoubleImage(Self.noise)
        var settings = Transform.Settings()
        settings.scale = SIMD2(Float(scaleX), Float(scaleY))
        settings.rotation = Float(rotation)
        settings.translation = SIMD2(Float(tx), Float(ty))
        settings.backgroundColor = SIMD4(0.2, 0.4, 0.6, 1)
        let result = try await render(Self.noise, through: Transform(settings))
        // For an output pixel centre p: q = centre + S⁻¹ R(θ)ᵀ (p - centre - t), R the on-screen
        // counter-clockwise rotation in y-down coordinates.
        let (c, s) = (cos(rotation), sin(rotation))
        var skipped = 0
        let reference = DoubleImage.generate(width: 23, height: 14) { x, y in
            let dx = Double(x) + 0.5 - 11.5 - tx, dy = Double(y) + 0.5 - 7 - ty
            let qx = 11.5 + (c * dx - s * dy) / scaleX, qy = 7 + (s * dx + c * dy) / scaleY
            if qx < 0 || qy < 0 || qx > 23 || qy > 14 { return SIMD4(0.2 * 255, 0.4 * 255, 0.6 * 255, 255) }
            return bilinear(source, qx, qy)
        }
        // Pixels whose position falls within 0.01 px of the input's border may go either way.
        var compared = reference
        for y in 0..<14 {
            for x in 0..<23 {
                let dx = Double(x) + 0.5 - 11.5 - tx, dy = Double(y) + 0.5 - 7 - ty
                let qx = 11.5 + (c * dx - s * dy) / scaleX, qy = 7 + (s * dx + c * dy) / scaleY
                if min(abs(qx), abs(qy), abs(qx - 23), abs(qy - 14)) < 0.01 {
                    let got = result[x, y]
                    compared.values[y * 23 + x] = SIMD4(Double(got.x), Double(got.y), Double(got.z), Double(got.w))
                    skipped += 1
                }
            }
        }
        expectClose(result, compared, "scale \(scaleX)x\(scaleY), rotation \(rotation), translation \(tx),\(ty)")
        #expect(skipped < 10)
    }

    @Test("A rotated photo matches the reference")
    func photo() async throws {
        let face = try Photos.astronautFace()
        var settings = Transform.Settings()
        settings.rotation = 0.3
        settings.scale = SIMD2(1.2, 1.2)
        let result = try await render(face, through: Transform(settings))
        let source = DoubleImage(face)
        let (c, s) = (cos(0.3), sin(0.3))
        let reference = DoubleImage.generate(width: 96, height: 96) { x, y in
            let dx = Double(x) + 0.5 - 48, dy = Double(y) + 0.5 - 48
            let qx = 48 + (c * dx - s * dy) / 1.2, qy = 48 + (s * dx + c * dy) / 1.2
            if qx < 0 || qy < 0 || qx > 96 || qy > 96 { return SIMD4(0, 0, 0, 255) }
            return bilinear(source, qx, qy)
        }
        expectClose(result, reference, "rotated photo")
    }

    @Test("Degenerate settings never render garbage: NaN scale means 1, zero scale is limited, NaN rotation means 0")
    func badSettings() async throws {
        var settings = Transform.Settings()
        settings.scale = SIMD2(.nan, .nan)
        settings.rotation = .nan
        settings.translation = SIMD2(.infinity, .nan)
        expectClose(try await render(Self.noise, through: Transform(settings)), DoubleImage(Self.noise), tolerance: 1, "NaN settings")
        settings.scale = .zero
        let tiny = try await render(Self.noise, through: Transform(settings))
        #expect(tiny.width == 23 && tiny.height == 14)
        #expect(tiny.pixels.count == 23 * 14 * 4)
        settings.outputWidth = -5
        settings.outputHeight = 0
        let one = try await render(Self.noise, through: Transform(settings))
        #expect(one.width == 1 && one.height == 1)
    }
}
