import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Parameters declared with `@Uniform`, as a filter author writes them.
private struct TestParameters: Sendable {
    @Uniform("amount", in: -1...1) var amount: Float = 0.25
    @Uniform("offset") var offset = SIMD2<Float>(1, 2)
    @Uniform("angle", normalize: { $0.truncatingRemainder(dividingBy: 360) }) var angle: Float = 0
    var notAUniform = 7
}

private final class TestFilter: ParameterizedFilter {
    let parameters = TestParameters()
}

/// A point filter written outside the framework, as the DocC article "Writing your own filter, sink and source" shows: scales R, G and B by 1 - amount.
private final class Fade: PointFilter {
    struct Parameters: Sendable {
        @Uniform("amount", in: 0...1) var amount: Float = 0
    }
    let parameters = Parameters()
    let colorPiece: ColorPiece
    let pass: ShaderPass
    let outputs = OutputTargets()

    init(amount: Float) throws {
        colorPiece = try ColorPiece(name: "fade", source: """
            uniform float PIECE_amount;
            vec4 PIECE_apply(vec4 color) { return vec4(color.rgb * (1.0 - PIECE_amount), color.a); }
            """)
        pass = ShaderPass(colorPiece: colorPiece)
        self.amount = amount
    }
}

@Suite("@Uniform parameters", .closesContexts)
struct UniformParameterTests {
    @Test("Values are clamped to the declared range; NaN means the declared default")
    func clamping() {
        let parameters = TestParameters()
        for (value, expected) in [(0.5, 0.5), (2, 1), (-3, -1), (.infinity, 1), (-.infinity, -1), (.nan, 0.25)] as [(Float, Float)] {
            parameters.amount = value
            #expect(parameters.amount == expected, "\(value)")
        }
        parameters.angle = 725
        #expect(parameters.angle == 5)
        // The built-in filters' documented ranges come from their declarations.
        #expect(Brightness(5).brightness == 1)
        #expect(Contrast(.nan).contrast == 1)
        #expect(Sharpen(amount: -1).amount == 0)
        #expect(Hue(degrees: 400).degrees == 40)
        #expect(Levels(gamma: 100).gamma == 10)
    }

    @Test("The filter reads and writes its parameters as its own properties; copies share the value")
    func access() {
        let filter = TestFilter()
        filter.amount = -0.5
        filter.offset = SIMD2(3, 4)
        #expect(filter.parameters.amount == -0.5)
        let copy = filter.parameters  // shares the storage: the setter is nonmutating
        copy.amount = 0.75
        #expect(filter.amount == 0.75)
        #expect(filter.parameterUniforms == ["amount": .float(0.75), "offset": .vec2(SIMD2(3, 4)), "angle": .float(0)])
        let levels = Levels(inputBlack: 0.1, inputWhite: 0.9, gamma: 2, outputBlack: 0.2, outputWhite: 0.8)
        #expect(levels.colorUniforms == ["inputBlack": .float(0.1), "inputWhite": .float(0.9), "gamma": .float(2),
                                         "outputBlack": .float(0.2), "outputWhite": .float(0.8)])
    }

    @Test("Setting a parameter from another thread while frames render: each frame has one of the values set, the last one wins")
    func concurrentSet() async throws {
        let context = try TestContexts.make()
        let brightness = Brightness()
        let gray = RGBAImage(width: 8, height: 8, pixels: [UInt8](repeating: 64, count: 8 * 8 * 4).enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element })
        let stop = Locked(false)
        let setter = JoinableThread(name: "uniform-setter", group: nil) {
            var count = 0
            while !stop.withLock({ $0 }) {
                brightness.brightness = count % 2 == 0 ? 0.5 : 0
                count += 1
            }
        }
        try setter.start()
        // 64 + 0.5 * 255 = 191.5: either neighbour level is a correct rounding.
        let allowed: Set<UInt8> = [64, 191, 192]
        for _ in 0..<20 {
            let result = try await render(gray, through: brightness, on: context)
            let red = Set(stride(from: 0, to: result.pixels.count, by: 4).map { result.pixels[$0] })
            #expect(red.count == 1 && red.isSubset(of: allowed), "\(red)")
        }
        stop.withLock { $0 = true }
        await setter.join()
        brightness.brightness = 0.5
        let last = try await render(gray, through: brightness, on: context)
        #expect([191, 192].contains(last.pixels[0]))
    }

    @Test("A point filter declared outside the framework renders alone and fused, its parameter clamped")
    func customPointFilter() async throws {
        let context = try TestContexts.make()
        let image = randomImage(width: 16, height: 4, seed: 31)
        let fade = try Fade(amount: 0.5)
        let reference = DoubleImage(image).map { rgb($0) { $0 * 0.5 } }
        expectClose(try await render(image, through: fade, on: context), reference, tolerance: 1, "alone")
        let chain = ColorChain([fade, Brightness(0.1)])
        let fused = DoubleImage(image).map { rgb($0) { level($0 * 0.5) + 0.1 * 255 } }
        expectClose(try await render(image, through: chain, on: context), fused, tolerance: 1, "fused")
        fade.amount = 3
        #expect(fade.amount == 1)
    }
}
