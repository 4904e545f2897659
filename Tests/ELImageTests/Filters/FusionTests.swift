import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Inverts R, G and B: a colour operation made at run time from GLSL source.
private final class Invert: ColorOperation {
    let colorPiece: ColorPiece
    var colorUniforms: [String: UniformValue] { [:] }
    init() throws {
        colorPiece = try ColorPiece(name: "invert", source: "vec4 PIECE_apply(vec4 color) { return vec4(1.0 - color.rgb, color.a); }")
    }
}

/// Runs `image` through `nodes` connected one after the other, counting the draw calls.
private func runChain(_ nodes: [any ImageOutput & ImageInput], on image: RGBAImage,
                      context: RenderContext) async throws -> (image: RGBAImage, draws: Int) {
    let input = RawDataInput()
    let (output, images) = imageCollector()
    var previous: ImageOutput = input
    for node in nodes {
        previous.addTarget(node)
        previous = node
    }
    previous.addTarget(output)
    let before = await context.drawCallCount
    try await input.process(image.pixels, width: image.width, height: image.height, format: .rgba,
                            timestamp: .zero, on: context)
    let draws = await context.drawCallCount - before
    return (try #require(images.values.first), draws)
}

@Suite("Pass fusion", .closesContexts)
struct FusionTests {
    @Test("brightness → contrast → saturation → grayscale: fused (a chain, or the nodes wired one after the other) equals the separate passes within 1 level on the photo, in 1 draw instead of 4")
    func fusedEqualsUnfusedGray() async throws {
        let photo = try Photos.astronaut()
        let context = try TestContexts.make()
        func operations() -> [any ImageOutput & ImageInput & ColorOperation] {
            [Brightness(0.06), Contrast(1.25), Saturation(1.4), Grayscale()]
        }
        let unfused = try await runChain(separately(operations()), on: photo, context: context)
        let fused = try await runChain([ColorChain(operations())], on: photo, context: context)
        let wired = try await runChain(operations(), on: photo, context: context)
        for (name, result) in [("chain", fused), ("wired nodes", wired)] {
            let worst = worstDifference(result.image, DoubleImage(unfused.image))
            #expect(worst.levels <= 1, "\(name) differs from the separate passes by \(worst.levels) levels at (\(worst.x), \(worst.y))")
            #expect(result.draws == 1, "\(name)")
        }
        #expect(unfused.draws == 4)
    }

    @Test("With full precision the fused chain is closer to the exact result than separate passes")
    func fullPrecision() async throws {
        let photo = try Photos.astronaut()
        let context = try TestContexts.make()
        let operations: [any ImageOutput & ImageInput & ColorOperation] = [Brightness(0.06), Contrast(1.25), Saturation(1.4), Grayscale()]
        let unfused = try await runChain(separately([Brightness(0.06), Contrast(1.25), Saturation(1.4), Grayscale()]), on: photo, context: context)
        let fused = try await runChain([ColorChain(operations, precision: .full)], on: photo, context: context)
        #expect(fused.draws == 1)
        // The exact chain in Double, clamped between steps as frames are.
        let exact = DoubleImage(photo).map { pixel in
            var p = clamped(rgb(pixel) { $0 + 0.06 * 255 })
            p = clamped(rgb(p) { ($0 - 127.5) * 1.25 + 127.5 })
            let luma = bt709Luma(p)
            p = clamped(rgb(p) { luma + ($0 - luma) * 1.4 })
            return rgb(p) { _ in bt709Luma(p) }
        }
        let fusedError = worstDifference(fused.image, exact).levels
        let unfusedError = worstDifference(unfused.image, exact).levels
        #expect(fusedError <= 1, "full-precision chain is \(fusedError) levels from the exact result")
        #expect(fusedError <= unfusedError, "separate passes: \(unfusedError) levels from the exact result")
    }

    @Test("Ten colour operations incl. a lookup table: fused equals unfused within 1 level on the photo")
    func fusedEqualsUnfusedLong() async throws {
        let photo = try Photos.astronaut()
        let context = try TestContexts.make()
        func operations() throws -> [any ImageOutput & ImageInput & ColorOperation] {
            [
                WhiteBalance(temperature: 0.3, tint: -0.1), Exposure(0.2), Gamma(1.1), Hue(degrees: 12),
                Levels(inputBlack: 0.04, inputWhite: 0.96, gamma: 1.1), Brightness(-0.03), Contrast(1.1),
                Saturation(0.9), try ColorMatrixFilter(matrix: [0.9, 0.1, 0, 0, 0, 0.95, 0.05, 0, 0.05, 0, 0.95, 0, 0, 0, 0, 1]),
                try LookupTable(table: LookupTableTests.graded, intensity: 0.5),
            ]
        }
        let unfused = try await runChain(separately(try operations()), on: photo, context: context)
        let fused = try await runChain([ColorChain(try operations())], on: photo, context: context)
        let wired = try await runChain(try operations(), on: photo, context: context)
        for (name, result) in [("chain", fused), ("wired nodes", wired)] {
            let worst = worstDifference(result.image, DoubleImage(unfused.image))
            #expect(worst.levels <= 1, "\(name) differs from the separate passes by \(worst.levels) levels at (\(worst.x), \(worst.y))")
            #expect(result.draws == 1, "\(name)")
        }
        #expect(unfused.draws == 10)
    }

    @Test("A FilterGroup fuses runs of colour operations around a blur and matches the unfused group")
    func groupFusesRuns() async throws {
        let image = randomImage(width: 40, height: 24, seed: 8)
        let context = try TestContexts.make()
        func members() -> [any ImageOutput & ImageInput] {
            [Brightness(0.05), Contrast(1.2), GaussianBlur(sigma: 1.5), Saturation(1.2), Grayscale()]
        }
        let fusedGroup = try FilterGroup(members())
        let unfusedGroup = try FilterGroup(members(), fusing: false)
        #expect(fusedGroup.stages.count == 3)
        #expect(fusedGroup.stages.first is ColorChain && fusedGroup.stages.last is ColorChain)
        #expect(unfusedGroup.stages.count == 5)
        let fused = try await runChain([fusedGroup], on: image, context: context)
        let unfused = try await runChain([unfusedGroup], on: image, context: context)
        let separate = try await runChain(separately(members()), on: image, context: context)
        #expect(fused.draws == 4)  // chain, two blur passes, chain
        #expect(unfused.draws == 4, "its nodes hand on recipes: the colour before the blur is drawn once, the colour after it once")
        #expect(separate.draws == 6)
        for (name, result) in [("fused group", fused), ("unfused group", unfused)] {
            let worst = worstDifference(result.image, DoubleImage(separate.image))
            #expect(worst.levels <= 1, "\(name) differs by \(worst.levels) levels at (\(worst.x), \(worst.y))")
        }
    }

    @Test("A group wrapping a hand-wired sub-graph (a blend of the input with its blur)")
    func groupOfSubgraph() async throws {
        let image = randomImage(width: 20, height: 12, seed: 9)
        let entry = Passthrough()
        let blur = BoxBlur(radius: 1)
        let blend = BlendFilter(mode: .multiply)
        // Input 0 triggers a blend, so the blur (input 1) must be fed first: entry's first target.
        entry --> blur
        blur.addTarget(blend, atIndex: 1)
        entry.addTarget(blend, atIndex: 0)
        let group = FilterGroup(entry: entry, exit: blend)
        let result = try await render(image, through: group)
        let source = DoubleImage(image)
        let reference = DoubleImage.generate(width: 20, height: 12) { x, y in
            var sum = SIMD4<Double>.zero
            for dy in -1...1 { for dx in -1...1 { sum += source[clamped: x + dx, y + dy] } }
            let blurred = level4(sum / 9)
            let base = source[clamped: x, y]
            return SIMD4(base.x * blurred.x / 255, base.y * blurred.y / 255, base.z * blurred.z / 255, 255)
        }
        expectClose(result, reference, "input × blur(input)")
    }

    @Test("Changing an operation's parameter changes the chain's next frame")
    func liveParameters() async throws {
        let image = randomImage(width: 8, height: 8, seed: 4)
        let context = try TestContexts.make()
        let brightness = Brightness(0)
        let chain = ColorChain([brightness, Contrast(1)])
        let first = try await render(image, through: chain, on: context)
        brightness.brightness = -1
        let second = try await render(image, through: chain, on: context)
        expectClose(first, DoubleImage(image), "brightness 0")
        expectClose(second, DoubleImage(image).map { SIMD4(0, 0, 0, $0.w) }, "brightness -1")
    }

    @Test("Programs are cached by the chain's shape; a piece made at run time fuses too")
    func shapesAndCustomPieces() async throws {
        #expect(ColorChain([Brightness(0.1), Contrast(2)]).programName == ColorChain([Brightness(-0.5), Contrast(1)]).programName)
        #expect(ColorChain([Brightness(), Contrast()]).programName != ColorChain([Contrast(), Brightness()]).programName)
        #expect(ColorChain([Brightness()]).programName == Brightness().programName)

        let image = randomImage(width: 16, height: 4, seed: 12)
        let chain = ColorChain([try Invert(), Brightness(0.1), try Invert()])
        let result = try await render(image, through: chain)
        expectClose(result, DoubleImage(image).map { rgb($0) { 255 - min(255 - $0 + 25.5, 255) } }, "invert, brighten, invert")
    }

    @Test("An empty chain passes frames through without drawing")
    func emptyChain() async throws {
        let image = randomImage(width: 5, height: 3, seed: 1)
        let context = try TestContexts.make()
        let (result, draws) = try await runChain([ColorChain([])], on: image, context: context)
        #expect(result == image)
        #expect(draws == 0)
    }

    @Test("Bad pieces and bad GLSL: errors with the line, thrown by prepare before any frame")
    func compileErrors() async throws {
        #expect(throws: ELImageError.self) { try ColorPiece(name: "Bad Name", source: "vec4 PIECE_apply(vec4 c) { return c; }") }
        #expect(throws: ELImageError.self) { try ColorPiece(name: "noapply", source: "vec4 f(vec4 c) { return c; }") }
        let context = try TestContexts.make()

        let broken = try ColorPiece(name: "broken", source: "vec4 PIECE_apply(vec4 color) {\n    return color * undefinedThing;\n}")
        final class Broken: ColorOperation {
            let colorPiece: ColorPiece
            var colorUniforms: [String: UniformValue] { [:] }
            init(_ piece: ColorPiece) { colorPiece = piece }
        }
        let chain = ColorChain([Brightness(), Broken(broken)])
        let lines = chain.fragmentShader.split(separator: "\n", omittingEmptySubsequences: false)
        let badLine = try #require(lines.firstIndex { $0.contains("undefinedThing") }) + 1
        do {
            try await context.perform { try chain.prepare(in: $0) }
            Issue.record("a broken piece compiled")
        } catch let ELImageError.shaderCompile(_, line, sourceLine, _) {
            #expect(line == badLine)
            #expect(sourceLine?.contains("undefinedThing") == true)
        }

        let custom = ShaderFilter(name: "custom_broken", fragmentShader: """
            #version 300 es
            precision highp float;
            in vec2 textureCoordinate;
            uniform sampler2D inputImageTexture;
            out vec4 fragColor;
            void main() {
                fragColor = texture(inputImageTexture, textureCoordinate) * missing;
            }
            """)
        do {
            try await context.perform { try custom.prepare(in: $0) }
            Issue.record("a broken custom filter compiled")
        } catch let ELImageError.shaderCompile(_, line, _, _) {
            #expect(line == 7)
        }

        let good = ShaderFilter(name: "custom_swap", fragmentShader: """
            #version 300 es
            precision highp float;
            in vec2 textureCoordinate;
            uniform sampler2D inputImageTexture;
            out vec4 fragColor;
            void main() { fragColor = texture(inputImageTexture, textureCoordinate).bgra; }
            """)
        try await context.perform { try good.prepare(in: $0) }
        let image = randomImage(width: 6, height: 2, seed: 2)
        expectClose(try await render(image, through: good, on: context), DoubleImage(image).map { SIMD4($0.z, $0.y, $0.x, $0.w) },
                    "custom swap")
    }

    @Test("An empty group is an error")
    func emptyGroup() {
        #expect(throws: ELImageError.self) { try FilterGroup([]) }
    }
}

/// Rounds each channel as an 8-bit frame stores it.
func level4(_ value: SIMD4<Double>) -> SIMD4<Double> {
    SIMD4(level(value.x), level(value.y), level(value.z), level(value.w))
}
