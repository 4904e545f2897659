@testable import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Pictures flow between nodes undrawn (`Picture`): a colour filter adds its piece to the recipe it
/// gets, a filter that reads at its own pixel or at texel centres takes the colour before it into
/// its pass, and a sink that packs runs the whole recipe in its pack. Each picture equals the one
/// the separate passes draw (within one level, where the GL's 8-bit store and the shader's
/// rounding differ), in fewer draws.
@Suite("Pictures and recipes", .closesContexts)
struct PictureTests {
    static let (width, height) = (160, 120)

    /// A vignette a user writes: reads its input only at the pixel it writes.
    static let vignette = """
        #version 300 es
        precision highp float;
        in vec2 textureCoordinate;
        uniform sampler2D inputImageTexture;
        uniform float strength;
        out vec4 fragColor;
        void main() {
            vec4 color = texture(inputImageTexture, textureCoordinate);
            float falloff = 1.0 - strength * dot(textureCoordinate - 0.5, textureCoordinate - 0.5) * 2.0;
            fragColor = vec4(color.rgb * falloff, color.a);
        }
        """

    static func userVignette(reads: InputReading = .ownPixel) -> ShaderFilter {
        let filter = ShaderFilter(name: "user_vignette", fragmentShader: vignette, reads: reads)
        filter.setUniform("strength", .float(0.8))
        return filter
    }

    /// Expects `fused` to be the separate passes' planes within `most` levels, on at most `percent`
    /// of the samples: each frame the separate nodes store is rounded to 8 bits by the GL, where
    /// the recipe's shader rounds to the nearest level itself; the two differ near halves (Mesa's
    /// software rasterizers scale by 255 with a bias rather than round exactly), and a filter after
    /// it (a sharpen, a contrast) amplifies that.
    static func expectClose(_ fused: PixelBuffer, _ separate: PixelBuffer, most: Int = 1, percent: Int = 5, _ what: String) {
        let differences = zip(fused.data, separate.data).map { abs(Int($0) - Int($1)) }
        #expect(differences.count == fused.width * fused.height * 3 / 2 && fused.width == separate.width)
        #expect(differences.max() ?? 99 <= most, "\(what): largest difference \(differences.max() ?? -1)")
        #expect(differences.filter { $0 > 0 }.count * 100 <= percent * differences.count,
                "\(what): \(differences.filter { $0 > 0 }.count) of \(differences.count) samples differ")
    }

    /// `nodes` one after the other into an I420 `YUVDataOutput` (and `more` outputs beside it
    /// from the last node): the planes and the draws for one frame of the photo.
    static func run(_ nodes: [any ImageOutput & ImageInput], format: PixelFormat = .i420, more: Int = 0,
                    context: RenderContext) async throws -> (buffer: PixelBuffer, draws: Int) {
        let result = Locked<PixelBuffer?>(nil)
        let input = RawDataInput()
        let output = try YUVDataOutput(format: format) { buffer in result.withLock { $0 = buffer } }
        var previous: any ImageOutput = input
        for node in nodes {
            previous.addTarget(node)
            previous = node
        }
        previous.addTarget(output)
        let others = try (0..<more).map { _ in try YUVDataOutput(format: format) { _ in } }
        for other in others { previous.addTarget(other) }
        let before = await context.drawCallCount
        try await input.process(try DeferredPassTests.photo(), width: width, height: height, format: .rgba,
                                timestamp: .zero, on: context)
        let draws = await context.drawCallCount - before
        #expect(try await output.finish() == 1)
        for other in others { #expect(try await other.finish() == 1) }
        return (try #require(result.withLock { $0 }), draws)
    }

    @Test("saturation → a vignette of the user's that reads its own pixel → I420: one recipe, drawn in the pack (the two pack passes); the separate passes draw two more")
    func colourIntoUserStage() async throws {
        let context = try TestContexts.make()
        let fused = try await Self.run([Saturation(1.4), Self.userVignette()], context: context)
        let separate = try await Self.run(separately([Saturation(1.4), Self.userVignette()]), context: context)
        Self.expectClose(fused.buffer, separate.buffer, "saturation → vignette")
        #expect(fused.draws == 2, "Y' and chroma averages with the recipe in them, then the chroma planes")
        #expect(separate.draws == fused.draws + 2)
    }

    @Test("A filter of the user's fuses exactly like the built-in one: sharpen.fsh as a ShaderFilter reading texel centres draws as Sharpen does, with colour before and after it")
    func userFilterLikeBuiltIn() async throws {
        let context = try TestContexts.make()
        let userSharpen = ShaderFilter(name: "user_sharpen", fragmentShader: EmbeddedShaders.sharpenFsh, reads: .texelCentres)
        userSharpen.setUniform("amount", .float(0.8))
        let user = try await Self.run([Brightness(0.05), userSharpen, Contrast(1.2)], context: context)
        let builtIn = try await Self.run([Brightness(0.05), Sharpen(amount: 0.8), Contrast(1.2)], context: context)
        #expect(user.draws == builtIn.draws)
        #expect(user.draws == 2, "brightness, sharpen and contrast run in the pack's first pass")
        #expect(user.buffer.data == builtIn.buffer.data)
        let separate = try await Self.run(separately([Brightness(0.05), Sharpen(amount: 0.8), Contrast(1.2)]), context: context)
        Self.expectClose(user.buffer, separate.buffer, most: 2, percent: 8, "brightness → sharpen → contrast")
    }

    @Test("A stage then colour ending gray → I420: one draw (the Y' rows, colour and all); sobel after colour, gray: the same")
    func stageThenColourGray() async throws {
        let context = try TestContexts.make()
        for nodes in [{ [Sharpen(amount: 0.5), Brightness(0.05), Grayscale()] }, { [Saturation(1.3), SobelEdges()] }]
            as [() -> [any ImageOutput & ImageInput]] {
            let fused = try await Self.run(nodes(), context: context)
            let separate = try await Self.run(separately(nodes()), context: context)
            Self.expectClose(fused.buffer, separate.buffer, most: 2, "\(nodes().map { NodeFailure.name(of: $0) })")
            #expect(fused.draws == 1, "\(nodes().map { NodeFailure.name(of: $0) })")
            #expect(fused.buffer.data[(Self.width * Self.height)...].allSatisfy { $0 == 128 })
        }
    }

    @Test("A stage that reads anywhere (the default) draws the colour before it first; a blur between colour filters splits them into two recipes")
    func anywhereDrawsFirst() async throws {
        let context = try TestContexts.make()
        let anywhere = try await Self.run([Saturation(1.4), Self.userVignette(reads: .anywhere)], context: context)
        #expect(anywhere.draws == 3, "saturation drawn, then the vignette in the pack")
        let own = try await Self.run([Saturation(1.4), Self.userVignette()], context: context)
        Self.expectClose(anywhere.buffer, own.buffer, "saturation drawn first, or in the vignette's pass")
        let blurred = try await Self.run([Brightness(0.05), Contrast(1.1), GaussianBlur(sigma: 1.5), Saturation(1.2)], context: context)
        #expect(blurred.draws == 1 + 2 + 2, "the colour before the blur in one draw, the blur's two passes, the pack with saturation")
    }

    @Test("Fan-out: the recipe is drawn once, and each sink packs the frame")
    func fanOutDrawsOnce() async throws {
        let context = try TestContexts.make()
        let one = try await Self.run([Saturation(1.4), Self.userVignette()], context: context)
        let three = try await Self.run([Saturation(1.4), Self.userVignette()], more: 2, context: context)
        #expect(three.draws == 1 + 3 * 2)
        DeferredPassTests.expectSame(three.buffer, one.buffer, "fanned out")
    }

    @Test("A shader that hands its sampler to a function cannot take colour before it: no source, and the colour is drawn first")
    func refusedShapes() async throws {
        let saturation = Saturation(1.2).colorPiece
        let passesSampler = """
            #version 300 es
            precision highp float;
            in vec2 textureCoordinate;
            uniform sampler2D inputImageTexture;
            out vec4 fragColor;
            vec4 read(sampler2D image, vec2 at) { return texture(image, at); }
            void main() { fragColor = read(inputImageTexture, textureCoordinate); }
            """
        #expect(RecipeShader.fragmentSource(before: [saturation], stage: passesSampler, after: []) == nil)
        #expect(RecipeShader.fragmentSource(before: [], stage: passesSampler, after: [saturation]) != nil,
                "colour after any stage is fine")
        #expect(RecipeShader.fragmentSource(before: [saturation], stage: Self.vignette, after: [saturation]) != nil)
        let context = try TestContexts.make()
        let filter = ShaderFilter(name: "passes_sampler", fragmentShader: passesSampler, reads: .ownPixel)
        let result = try await Self.run([Saturation(1.2), filter], context: context)
        #expect(result.draws == 3)
    }

    @Test("Every generated recipe shader passes glslangValidator")
    func generatedShadersValidate() throws {
        let pieces = [Brightness(0.1).colorPiece, ColorPiece(builtIn: "lookup", source: EmbeddedShaders.colorLookupGlsl),
                      Grayscale().colorPiece]
        let sources = [
            RecipeShader.fragmentSource(before: pieces, stage: Self.vignette, after: pieces),
            RecipeShader.fragmentSource(before: pieces, stage: EmbeddedShaders.sharpenFsh, after: []),
            RecipeShader.fragmentSource(before: [], stage: EmbeddedShaders.sobelEdgesFsh, after: pieces),
            RecipeShader.fragmentSource(before: pieces, stage: EmbeddedShaders.blendMultiplyFsh, after: pieces),
        ]
        for (number, source) in sources.enumerated() {
            let source = try #require(source)
            try ShaderPieceTests.validate(source, name: "recipe_\(number)")
            let packed = try #require(RecipePackShader.packSource(for: source, chromaLocation: .left, stencilRows: false))
            try ShaderPieceTests.validate(packed, name: "recipe_\(number)_packed")
        }
    }
}
