import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// W3C Compositing and Blending formulas on 0...1 values.
enum BlendFormula {
    static func multiply(_ b: Double, _ s: Double) -> Double { b * s }
    static func screen(_ b: Double, _ s: Double) -> Double { b + s - b * s }
    static func hardLight(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? multiply(b, 2 * s) : screen(b, 2 * s - 1) }
    static func overlay(_ b: Double, _ s: Double) -> Double { hardLight(s, b) }
    static func softLight(_ b: Double, _ s: Double) -> Double {
        if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
        let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
        return b + (2 * s - 1) * (d - b)
    }
}

struct BlendCase: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (Float) -> any ImageOutput & ImageInput
    let formula: @Sendable (Double, Double) -> Double
    var testDescription: String { name }
}

@Suite("Blend modes", .closesContexts)
struct BlendFilterTests {
    static let cases = [
        BlendCase(name: "alpha", make: { BlendFilter(mode: .alpha, opacity: $0) }, formula: { _, s in s }),
        BlendCase(name: "multiply", make: { BlendFilter(mode: .multiply, opacity: $0) }, formula: BlendFormula.multiply),
        BlendCase(name: "screen", make: { BlendFilter(mode: .screen, opacity: $0) }, formula: BlendFormula.screen),
        BlendCase(name: "overlay", make: { BlendFilter(mode: .overlay, opacity: $0) }, formula: BlendFormula.overlay),
        BlendCase(name: "soft light", make: { BlendFilter(mode: .softLight, opacity: $0) }, formula: BlendFormula.softLight),
    ]

    /// rgb = base + (B(base, top) - base) * top.a * opacity; alpha = coverage + base.a (1 - coverage).
    static func reference(base: RGBAImage, top: RGBAImage, opacity: Double,
                          formula: (Double, Double) -> Double) -> DoubleImage {
        let b = DoubleImage(base), t = DoubleImage(top)
        return DoubleImage(width: base.width, height: base.height, values: zip(b.values, t.values).map { bp, tp in
            let coverage = tp.w / 255 * opacity
            func channel(_ x: Double, _ y: Double) -> Double { x + (formula(x / 255, y / 255) * 255 - x) * coverage }
            return SIMD4(channel(bp.x, tp.x), channel(bp.y, tp.y), channel(bp.z, tp.z),
                         255 * coverage + bp.w * (1 - coverage))
        })
    }

    @Test("Random layers (random alpha) match the W3C formulas within 2 levels at opacity 1, 0.6 and 0", arguments: cases)
    func random(_ blend: BlendCase) async throws {
        let base = randomImage(width: 31, height: 9, seed: 51, randomAlpha: true)
        let top = randomImage(width: 31, height: 9, seed: 52, randomAlpha: true)
        for opacity in [1.0, 0.6, 0.0] {
            let result = try await render(base: base, top: top, through: blend.make(Float(opacity)))
            expectClose(result, Self.reference(base: base, top: top, opacity: opacity, formula: blend.formula),
                        "\(blend.name), opacity \(opacity)")
        }
    }

    @Test("The photo under an opaque gradient layer", arguments: cases)
    func photo(_ blend: BlendCase) async throws {
        let photo = try Photos.astronaut()
        let gradient = RGBAImage(width: 512, height: 512, pixels: (0..<(512 * 512)).flatMap { index -> [UInt8] in
            let x = index % 512, y = index / 512
            return [UInt8(x / 2), UInt8(y / 2), UInt8(255 - x / 2), 255]
        })
        let result = try await render(base: photo, top: gradient, through: blend.make(0.8))
        expectClose(result, Self.reference(base: photo, top: gradient, opacity: 0.8, formula: blend.formula), "\(blend.name) on the photo")
    }

    @Test("Opacity is clamped to 0...1; NaN means 1")
    func badOpacity() {
        #expect(BlendFilter(mode: .alpha, opacity: .nan).opacity == 1)
        #expect(BlendFilter(mode: .multiply, opacity: 5).opacity == 1)
        #expect(BlendFilter(mode: .screen, opacity: -1).opacity == 0)
    }
}
