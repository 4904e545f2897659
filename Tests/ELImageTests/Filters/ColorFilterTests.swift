import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// A colour filter setting with its CPU reference, written from the filter's documented formula in
/// Double on 0...255 values (independently of the shader's GLSL).
struct ColorCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// Also checked on the whole astronaut photo.
    let onPhoto: Bool
    let make: @Sendable () throws -> any ImageOutput & ImageInput
    let reference: @Sendable (SIMD4<Double>) -> SIMD4<Double>
    var testDescription: String { name }

    init(_ name: String, onPhoto: Bool = false, make: @escaping @Sendable () throws -> any ImageOutput & ImageInput,
         reference: @escaping @Sendable (SIMD4<Double>) -> SIMD4<Double>) {
        self.name = name
        self.onPhoto = onPhoto
        self.make = make
        self.reference = reference
    }
}

/// Applies `transform` to R, G and B, keeping alpha.
func rgb(_ pixel: SIMD4<Double>, _ transform: (Double) -> Double) -> SIMD4<Double> {
    SIMD4(transform(pixel.x), transform(pixel.y), transform(pixel.z), pixel.w)
}

func bt709Luma(_ pixel: SIMD4<Double>) -> Double { 0.2126 * pixel.x + 0.7152 * pixel.y + 0.0722 * pixel.z }

/// Hue rotation about the gray axis as the explicit matrix of a rotation by `degrees` about
/// (1, 1, 1) / √3: diagonal c + (1 - c) / 3, off-diagonal (1 - c) / 3 ± s / √3.
func hueReference(_ degrees: Double) -> @Sendable (SIMD4<Double>) -> SIMD4<Double> {
    let angle = degrees * .pi / 180
    let (c, s) = (cos(angle), sin(angle))
    let diagonal = c + (1 - c) / 3, plus = (1 - c) / 3 + s / sqrt(3), minus = (1 - c) / 3 - s / sqrt(3)
    return { p in
        SIMD4(diagonal * p.x + minus * p.y + plus * p.z,
              plus * p.x + diagonal * p.y + minus * p.z,
              minus * p.x + plus * p.y + diagonal * p.z, p.w)
    }
}

func whiteBalanceReference(temperature t: Double, tint m: Double) -> @Sendable (SIMD4<Double>) -> SIMD4<Double> {
    let red = 1 + 0.2 * t + 0.1 * m, green = 1 - 0.2 * m, blue = 1 - 0.2 * t + 0.1 * m
    let norm = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return { p in SIMD4(p.x * red / norm, p.y * green / norm, p.z * blue / norm, p.w) }
}

func levelsReference(inputBlack: Double, inputWhite: Double, gamma: Double, outputBlack: Double,
                     outputWhite: Double) -> @Sendable (SIMD4<Double>) -> SIMD4<Double> {
    { pixel in
        rgb(pixel) { value in
            let t = min(max((value / 255 - inputBlack) / max(inputWhite - inputBlack, 1.0 / 255), 0), 1)
            return 255 * (outputBlack + (outputWhite - outputBlack) * pow(t, 1 / gamma))
        }
    }
}

/// Row-major 4x4 times (r, g, b, a) / 255 plus offset, mixed with the input by `intensity`.
func matrixReference(_ m: [Double], offset: [Double], intensity: Double) -> @Sendable (SIMD4<Double>) -> SIMD4<Double> {
    { p in
        let v = [p.x, p.y, p.z, p.w].map { $0 / 255 }
        let out = (0..<4).map { row in (0..<4).reduce(offset[row]) { $0 + m[row * 4 + $1] * v[$1] } * 255 }
        let original = [p.x, p.y, p.z, p.w]
        let mixed = (0..<4).map { original[$0] + (out[$0] - original[$0]) * intensity }
        return SIMD4(mixed[0], mixed[1], mixed[2], mixed[3])
    }
}

@Suite("Colour filters", .closesContexts)
struct ColorFilterTests {
    static let cases: [ColorCase] = [
        ColorCase("brightness 0 (identity)", make: { Brightness(0) }, reference: { $0 }),
        ColorCase("brightness +0.3", onPhoto: true, make: { Brightness(0.3) }, reference: { rgb($0) { $0 + 0.3 * 255 } }),
        ColorCase("brightness -1 (black)", make: { Brightness(-1) }, reference: { rgb($0) { $0 - 255 } }),
        ColorCase("brightness +1 (white)", make: { Brightness(1) }, reference: { rgb($0) { $0 + 255 } }),
        ColorCase("contrast 1 (identity)", make: { Contrast(1) }, reference: { $0 }),
        ColorCase("contrast 1.6", onPhoto: true, make: { Contrast(1.6) }, reference: { rgb($0) { ($0 - 127.5) * 1.6 + 127.5 } }),
        ColorCase("contrast 0 (mid-gray)", make: { Contrast(0) }, reference: { rgb($0) { _ in 127.5 } }),
        ColorCase("contrast 4", make: { Contrast(4) }, reference: { rgb($0) { ($0 - 127.5) * 4 + 127.5 } }),
        ColorCase("saturation 1 (identity)", make: { Saturation(1) }, reference: { $0 }),
        ColorCase("saturation 0 (gray)", make: { Saturation(0) }, reference: { p in rgb(p) { _ in bt709Luma(p) } }),
        ColorCase("saturation 1.8", onPhoto: true, make: { Saturation(1.8) },
                  reference: { p in rgb(p) { bt709Luma(p) + ($0 - bt709Luma(p)) * 1.8 } }),
        ColorCase("exposure 0 (identity)", make: { Exposure(0) }, reference: { $0 }),
        ColorCase("exposure +1", onPhoto: true, make: { Exposure(1) }, reference: { rgb($0) { $0 * 2 } }),
        ColorCase("exposure -2.5", make: { Exposure(-2.5) }, reference: { rgb($0) { $0 * pow(2, -2.5) } }),
        ColorCase("exposure -10", make: { Exposure(-10) }, reference: { rgb($0) { $0 / 1024 } }),
        ColorCase("gamma 1 (identity)", make: { Gamma(1) }, reference: { $0 }),
        ColorCase("gamma 2.2", onPhoto: true, make: { Gamma(2.2) }, reference: { rgb($0) { 255 * pow($0 / 255, 2.2) } }),
        ColorCase("gamma 0.4", make: { Gamma(0.4) }, reference: { rgb($0) { 255 * pow($0 / 255, 0.4) } }),
        ColorCase("gamma 10", make: { Gamma(10) }, reference: { rgb($0) { 255 * pow($0 / 255, 10) } }),
        ColorCase("hue 0 (identity)", make: { Hue(degrees: 0) }, reference: { $0 }),
        ColorCase("hue 360 (identity)", make: { Hue(degrees: 360) }, reference: { $0 }),
        ColorCase("hue 45", onPhoto: true, make: { Hue(degrees: 45) }, reference: hueReference(45)),
        ColorCase("hue -150", make: { Hue(degrees: -150) }, reference: hueReference(-150)),
        ColorCase("white balance 0, 0 (identity)", make: { WhiteBalance() }, reference: { $0 }),
        ColorCase("white balance warm 0.6, tint -0.3", onPhoto: true, make: { WhiteBalance(temperature: 0.6, tint: -0.3) },
                  reference: whiteBalanceReference(temperature: 0.6, tint: -0.3)),
        ColorCase("white balance -1, 1", make: { WhiteBalance(temperature: -1, tint: 1) },
                  reference: whiteBalanceReference(temperature: -1, tint: 1)),
        ColorCase("levels (identity)", make: { Levels() }, reference: { $0 }),
        ColorCase("levels 0.1-0.8, gamma 1.4, out 0.05-0.95", onPhoto: true,
                  make: { Levels(inputBlack: 0.1, inputWhite: 0.8, gamma: 1.4, outputBlack: 0.05, outputWhite: 0.95) },
                  reference: levelsReference(inputBlack: 0.1, inputWhite: 0.8, gamma: 1.4, outputBlack: 0.05, outputWhite: 0.95)),
        ColorCase("levels inverted output, gamma 0.1", make: { Levels(gamma: 0.1, outputBlack: 1, outputWhite: 0) },
                  reference: levelsReference(inputBlack: 0, inputWhite: 1, gamma: 0.1, outputBlack: 1, outputWhite: 0)),
        ColorCase("levels narrow input range 0.4-0.5", make: { Levels(inputBlack: 0.4, inputWhite: 0.5) },
                  reference: levelsReference(inputBlack: 0.4, inputWhite: 0.5, gamma: 1, outputBlack: 0, outputWhite: 1)),
        ColorCase("colour matrix identity", make: { try ColorMatrixFilter() }, reference: { $0 }),
        ColorCase("colour matrix sepia with offset", onPhoto: true,
                  make: { try ColorMatrixFilter(matrix: [0.393, 0.769, 0.189, 0, 0.349, 0.686, 0.168, 0, 0.272, 0.534, 0.131, 0, 0, 0, 0, 1],
                                                offset: SIMD4(0.02, 0, -0.03, 0)) },
                  reference: matrixReference([0.393, 0.769, 0.189, 0, 0.349, 0.686, 0.168, 0, 0.272, 0.534, 0.131, 0, 0, 0, 0, 1],
                                             offset: [0.02, 0, -0.03, 0], intensity: 1)),
        ColorCase("colour matrix channel swap and alpha, intensity 0.5",
                  make: { try ColorMatrixFilter(matrix: [0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0.5], intensity: 0.5) },
                  reference: matrixReference([0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0.5], offset: [0, 0, 0, 0], intensity: 0.5)),
        ColorCase("colour matrix intensity 0 (identity)",
                  make: { try ColorMatrixFilter(matrix: [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1], intensity: 0) },
                  reference: { $0 }),
        ColorCase("grayscale", onPhoto: true, make: { Grayscale() }, reference: { p in rgb(p) { _ in bt709Luma(p) } }),
    ]

    static let photoCases = cases.filter(\.onPhoto)

    @Test("Random pixels (random alpha) match the CPU reference within 2 levels", arguments: cases)
    func randomPixels(_ colorCase: ColorCase) async throws {
        let image = randomImage(width: 37, height: 19, seed: 11, randomAlpha: true)
        let result = try await render(image, through: try colorCase.make())
        expectClose(result, DoubleImage(image).map(colorCase.reference), colorCase.name)
    }

    @Test("The astronaut photo matches the CPU reference within 2 levels", arguments: photoCases)
    func photo(_ colorCase: ColorCase) async throws {
        let image = try Photos.astronaut()
        let result = try await render(image, through: try colorCase.make())
        expectClose(result, DoubleImage(image).map(colorCase.reference), colorCase.name)
    }

    @Test("Hue rotation by 120° turns red into green, green into blue, gray stays")
    func hueThirdTurn() async throws {
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 90, 90, 90, 255]
        let result = try await render(RGBAImage(width: 4, height: 1, pixels: pixels), through: Hue(degrees: 120))
        let expected: [[UInt8]] = [[0, 255, 0], [0, 0, 255], [255, 0, 0], [90, 90, 90]]
        for (x, colour) in expected.enumerated() {
            let got = result[x, 0]
            #expect(zip([got.x, got.y, got.z], colour).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "pixel \(x): \(got)")
        }
    }

    @Test("Bad parameters are clamped, NaN means neutral, and the render matches the clamped reference")
    func badParameters() async throws {
        let brightness = Brightness(.nan)
        #expect(brightness.brightness == 0)
        brightness.brightness = 7
        #expect(brightness.brightness == 1)
        brightness.brightness = -.infinity
        #expect(brightness.brightness == -1)
        #expect(Contrast(-3).contrast == 0)
        #expect(Contrast(.nan).contrast == 1)
        #expect(Saturation(.infinity).saturation == 4)
        #expect(Exposure(.nan).exposure == 0)
        #expect(Gamma(0).gamma == 0.01)
        #expect(Gamma(-2).gamma == 0.01)
        #expect(Hue(degrees: .nan).degrees == 0)
        #expect(Hue(degrees: 725).degrees == 5)
        #expect(WhiteBalance(temperature: 9, tint: .nan).temperature == 1)
        #expect(Levels(gamma: .nan).gamma == 1)
        #expect(Levels(inputBlack: -1).inputBlack == 0)

        // A NaN gamma would render NaN (garbage) if it reached the shader; clamped, it renders gray levels.
        let image = randomImage(width: 16, height: 8, seed: 3)
        let gamma = Gamma(.nan)
        expectClose(try await render(image, through: gamma), DoubleImage(image), "gamma NaN → 1")
        let exposure = Exposure(1000)
        expectClose(try await render(image, through: exposure), DoubleImage(image).map { rgb($0) { $0 * 1024 } },
                    "exposure 1000 → 10")
    }

    @Test("Colour matrices with NaN or the wrong count are rejected with an error and keep the old matrix")
    func badMatrix() throws {
        #expect(throws: ELImageError.self) { try ColorMatrixFilter(matrix: [1, 0, 0]) }
        var nanMatrix = ColorMatrixFilter.identity
        nanMatrix[5] = .nan
        #expect(throws: ELImageError.self) { try ColorMatrixFilter(matrix: nanMatrix) }
        let filter = try ColorMatrixFilter(matrix: [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1])
        #expect(throws: ELImageError.self) { try filter.setMatrix(ColorMatrixFilter.identity, offset: SIMD4(.infinity, 0, 0, 0)) }
        #expect(filter.matrix == [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1])
        #expect(filter.offset == .zero)
    }
}
