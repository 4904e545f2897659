@testable import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// A filter whose one target packs 8-bit 4:2:0 runs its last pass inside the sink's pack
/// (`DeferredPass`): the planes equal those of the frame drawn and packed separately (within one
/// level, where the GL's 8-bit store and the pass's rounding differ), in fewer draws; shaders it
/// cannot run so are drawn as usual.
@Suite("Last pass in the pack", .closesContexts)
struct DeferredPassTests {
    static let (width, height) = (160, 120)

    /// A real photo as RGBA (an RGB source: no fused colour line before the filter).
    static func photo() throws -> [UInt8] {
        [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", Repository.path("Examples/Media/astronaut.png"),
                                      "-vf", "scale=\(width):\(height),format=rgba", "-f", "rawvideo", "-"]))
    }

    /// `filter` into an I420 `YUVDataOutput` sited at `location`: the planes and the draws. With
    /// `fanOut` a second output beside it makes the filter draw its frame as usual.
    static func run(_ filter: any ImageOutput & ImageInput, location: ChromaLocation = .left, format: PixelFormat = .i420,
                    fanOut: Bool, context: RenderContext) async throws -> (buffer: PixelBuffer, draws: Int) {
        let result = Locked<PixelBuffer?>(nil)
        let input = RawDataInput()
        let output = try YUVDataOutput(format: format, chromaLocation: location) { buffer in result.withLock { $0 = buffer } }
        input.addTarget(filter)
        filter.addTarget(output)
        let second = fanOut ? try YUVDataOutput(format: format, chromaLocation: location) { _ in } : nil
        if let second { filter.addTarget(second) }
        let before = await context.drawCallCount
        try await input.process(try photo(), width: width, height: height, format: .rgba, timestamp: .zero, on: context)
        let draws = await context.drawCallCount - before
        #expect(try await output.finish() == 1)
        if let second { #expect(try await second.finish() == 1) }
        filter.removeAllTargets()
        return (try #require(result.withLock { $0 }), draws)
    }

    static func expectSame(_ deferred: PixelBuffer, _ separate: PixelBuffer, _ what: String) {
        let differences = zip(deferred.data, separate.data).map { abs(Int($0) - Int($1)) }
        #expect(differences.count == deferred.width * deferred.height * 3 / 2 && deferred.width == separate.width)
        #expect(differences.max() ?? 99 <= 1, "\(what): largest difference \(differences.max() ?? -1)")
        #expect(differences.filter { $0 > 0 }.count * 100 <= 2 * differences.count,
                "\(what): \(differences.filter { $0 > 0 }.count) samples differ")
    }

    static let filters: [(String, @Sendable () -> any ImageOutput & ImageInput)] = [
        ("sharpen (3x3 stencil)", { Sharpen(amount: 0.8) }), ("sobel", { SobelEdges() }),
        ("beauty", { Beauty(strength: 0.8) }), ("colour chain from RGB", { ColorChain([Brightness(0.1), Saturation(1.4)]) }),
        ("crop", { Crop(Crop.Region(x: 8, y: 4, width: 144, height: 100)) }),
    ]

    @Test("Sharpen, sobel, beauty, a colour chain, crop into I420: the last pass in the pack equals the separate passes within one level, one draw fewer",
          arguments: filters.indices, [ChromaLocation.left, .center])
    func sameAsSeparate(index: Int, location: ChromaLocation) async throws {
        let context = try TestContexts.make()
        let (name, make) = Self.filters[index]
        let deferred = try await Self.run(make(), location: location, fanOut: false, context: context)
        let separate = try await Self.run(make(), location: location, fanOut: true, context: context)
        Self.expectSame(deferred.buffer, separate.buffer, "\(name), \(location)")
        // The separate run packs twice (two outputs, two draws each; a gray frame, sobel's, one:
        // its Y'); the deferred run draws the filter's last pass as the pack's first.
        let packDraws = name == "sobel" ? 1 : 2
        #expect(deferred.draws == separate.draws - 1 - packDraws, "\(name): \(deferred.draws) draws against \(separate.draws)")
        if name == "sobel" { #expect(deferred.buffer.data[(deferred.buffer.width * deferred.buffer.height)...].allSatisfy { $0 == 128 }) }
    }

    @Test("Through a group's exit (as `elimage run` wires filters), with an observer beside the sink; --explain says so")
    func groupAndObserver() async throws {
        let context = try TestContexts.make()
        let counter = FrameCounter()
        let group = try FilterGroup([GaussianBlur(sigma: 2), Sharpen(amount: 0.5)])
        group.addTarget(counter)
        let deferred = try await Self.run(group, fanOut: false, context: context)
        #expect(counter.count == 1, "the observer hears of the frame")
        let separate = try await Self.run(try FilterGroup([GaussianBlur(sigma: 2), Sharpen(amount: 0.5)]), fanOut: true,
                                          context: context)
        Self.expectSame(deferred.buffer, separate.buffer, "group")
        #expect(deferred.draws == separate.draws - 3)

        let input = RawDataInput()
        let output = try YUVDataOutput(format: .i420) { _ in }
        let explained = try FilterGroup([Sharpen(amount: 0.5)])
        input --> explained --> output
        try await input.process(try PixelBuffer(format: .i420, width: Self.width, height: Self.height), on: context)
        _ = try await output.finish()
        let lines = try #require(PlanExplanation(of: input, threads: [])).lines
        #expect(lines.contains { $0.contains("Sharpen#") && $0.contains("the last runs inside YUVDataOutput#") }, "\(lines)")
    }

    @Test("Fan-out: a second sink takes the filter's picture drawn once for both; rewired back, the pass runs inside the pack again")
    func compiledOncePerWiring() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let sharpen = Sharpen(amount: 0.5)
        let output = try YUVDataOutput(format: .i420) { _ in }
        input --> sharpen --> output
        let picture = try Self.photo()
        var sent = 0
        func draws(forFrames count: Int) async throws -> Int {
            let before = await context.drawCallCount
            for _ in 0..<count {
                try await input.process(picture, width: Self.width, height: Self.height, format: .rgba,
                                        timestamp: MediaTime(value: Int64(sent), timescale: 25), on: context)
                sent += 1
            }
            return await context.drawCallCount - before
        }
        let deferred = try await draws(forFrames: 5)
        let second = try YUVDataOutput(format: .i420) { _ in }
        sharpen.addTarget(second)
        let fannedOut = try await draws(forFrames: 5)
        // Fanned out, each frame draws the filter's pass and a second two-pass pack.
        #expect(fannedOut == deferred + 5 * (1 + 2), "\(fannedOut) draws against \(deferred)")
        sharpen.removeTarget(second)
        #expect(try await draws(forFrames: 5) == deferred)
        #expect(try await output.finish() == 15)
        #expect(try await second.finish() == 5)
    }

    @Test("Long neighbourhood passes (the blurs' vertical pass, bilateral) draw their frame: no cheaper inside the pack")
    func longPassesDrawn() async throws {
        let context = try TestContexts.make()
        for make in [{ GaussianBlur(sigma: 3) }, { BoxBlur(radius: 2) }, { BilateralBlur() }] as [() -> any ImageOutput & ImageInput] {
            let alone = try await Self.run(make(), fanOut: false, context: context)
            let separate = try await Self.run(make(), fanOut: true, context: context)
            #expect(alone.buffer.data == separate.buffer.data)
            #expect(alone.draws == separate.draws - 2, "drawn, then packed in two draws")
        }
    }

    @Test("YV12 takes the pass too: the same planes as I420 in the other order")
    func yv12() async throws {
        let context = try TestContexts.make()
        let i420 = try await Self.run(Sharpen(amount: 0.5), fanOut: false, context: context)
        let yv12 = try await Self.run(Sharpen(amount: 0.5), format: .yv12, fanOut: false, context: context)
        let luma = Self.width * Self.height, chroma = luma / 4
        #expect(yv12.draws == i420.draws)
        #expect(yv12.buffer.data[..<luma] == i420.buffer.data[..<luma])
        #expect(yv12.buffer.data[luma..<(luma + chroma)] == i420.buffer.data[(luma + chroma)...])
    }

    @Test("A shader with derivatives is drawn as usual, and packs to what it draws")
    func derivativesDrawnAsUsual() async throws {
        let shader = """
        #version 300 es
        precision highp float;
        in vec2 textureCoordinate;
        uniform sampler2D inputImageTexture;
        out vec4 fragColor;
        void main() {
            vec4 color = texture(inputImageTexture, textureCoordinate);
            fragColor = vec4(color.rgb + 4.0 * abs(dFdx(color.rgb)), 1.0);
        }
        """
        #expect(RecipePackShader.functionSource(of: shader) == nil)
        let context = try TestContexts.make()
        let alone = try await Self.run(ShaderFilter(name: "derivatives", fragmentShader: shader), fanOut: false, context: context)
        let separate = try await Self.run(ShaderFilter(name: "derivatives", fragmentShader: shader), fanOut: true, context: context)
        #expect(alone.buffer.data == separate.buffer.data)
        #expect(alone.draws == separate.draws - 2, "drawn once, packed in two draws")
    }

    /// A 3x3 stencil that is not symmetric: each pixel takes its right, top and bottom-left
    /// neighbours in different shares, so a neighbourhood read one texel off shows.
    static let lopsidedStencil = """
        #version 300 es
        precision highp float;
        uniform sampler2D inputImageTexture;
        out vec4 fragColor;
        vec4 filterStencil3x3(vec4 texels[9]) {
            return vec4(0.5 * texels[5].rgb + 0.3 * texels[1].bgr + 0.2 * texels[6].gbr, 1.0);
        }
        void main() {
            ivec2 last = textureSize(inputImageTexture, 0) - 1;
            ivec2 p = ivec2(gl_FragCoord.xy);
            vec4 texels[9];
            for (int k = 0; k < 9; k++) {
                texels[k] = texelFetch(inputImageTexture, clamp(p + ivec2(k % 3 - 1, k / 3 - 1), ivec2(0), last), 0);
            }
            fragColor = filterStencil3x3(texels);
        }
        """

    @Test("A 3x3 stencil (filterStencil3x3) runs on neighbourhoods read once a row: sharpen, sobel and a lopsided user stencil equal their drawn frames, edges included",
          arguments: [ChromaLocation.left, .center])
    func stencils(location: ChromaLocation) async throws {
        #expect(RecipePackShader.isStencil3x3(EmbeddedShaders.sharpenFsh) && RecipePackShader.isStencil3x3(EmbeddedShaders.sobelEdgesFsh))
        #expect(!RecipePackShader.isStencil3x3(EmbeddedShaders.bilateralBlurFsh))
        #expect(RecipePackShader.packSource(for: Self.lopsidedStencil, chromaLocation: location)?.contains("stencilRow(start") == true)
        let gray = RecipePackShader.grayPackSource(for: EmbeddedShaders.sobelEdgesFsh, defines: [("PLANE_KIND", 0)])
        #expect(gray?.contains("#define FUSED_ROW_OF_FOUR 1") == true)
        let context = try TestContexts.make()
        let deferred = try await Self.run(ShaderFilter(name: "lopsided", fragmentShader: Self.lopsidedStencil), location: location,
                                          fanOut: false, context: context)
        let separate = try await Self.run(ShaderFilter(name: "lopsided", fragmentShader: Self.lopsidedStencil), location: location,
                                          fanOut: true, context: context)
        Self.expectSame(deferred.buffer, separate.buffer, "lopsided stencil, \(location)")
        #expect(deferred.draws == separate.draws - 3)
    }

    @Test("The shader rewrite: varying and output become globals, main a function, gl_FragCoord the pixel run")
    func rewrite() throws {
        let source = try #require(RecipePackShader.functionSource(of: EmbeddedShaders.sharpenFsh))
        #expect(source.output == "deferredFilterOutput")
        #expect(!source.source.contains("fragColor"), "renamed, so that the pack's own output cannot meet it")
        #expect(source.source.contains("void deferredFilterMain()"))
        #expect(!source.source.contains("gl_FragCoord") && source.source.contains("deferredFragCoord"))
        #expect(!source.source.contains("in vec2 textureCoordinate;"))
        let twoOutputs = "#version 300 es\nin vec2 textureCoordinate;\nlayout(location = 0) out vec4 a;\nlayout(location = 1) out vec4 b;\nvoid main() {}\n"
        #expect(RecipePackShader.functionSource(of: twoOutputs) == nil)
        let otherVarying = "#version 300 es\nin vec2 textureCoordinate;\nin vec4 tint;\nout vec4 fragColor;\nvoid main() {}\n"
        #expect(RecipePackShader.functionSource(of: otherVarying) == nil)
    }
}
