import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// A 512x512 table in GPUImage's layout built from `mapping` on the 64-level lattice:
/// blue level b is tile (b % 8, b / 8); red runs along x and green along y inside it.
func lookupImage(_ mapping: (Double, Double, Double) -> (Double, Double, Double)) -> RGBAImage {
    var pixels = [UInt8](repeating: 255, count: 512 * 512 * 4)
    for blue in 0..<64 {
        for green in 0..<64 {
            for red in 0..<64 {
                let (r, g, b) = mapping(Double(red) / 63, Double(green) / 63, Double(blue) / 63)
                let x = (blue % 8) * 64 + red, y = (blue / 8) * 64 + green
                let offset = (y * 512 + x) * 4
                pixels[offset] = UInt8(level(r * 255))
                pixels[offset + 1] = UInt8(level(g * 255))
                pixels[offset + 2] = UInt8(level(b * 255))
            }
        }
    }
    return RGBAImage(width: 512, height: 512, pixels: pixels)
}

/// Trilinear interpolation of the table's lattice at a colour (0...255), mixed by `intensity`.
func lookupReference(_ table: RGBAImage, intensity: Double = 1) -> @Sendable (SIMD4<Double>) -> SIMD4<Double> {
    let lattice = DoubleImage(table)
    return { pixel in
        let position = SIMD3(pixel.x, pixel.y, pixel.z) / 255 * 63
        let low = SIMD3(position.x.rounded(.down), position.y.rounded(.down), position.z.rounded(.down))
        let fraction = position - low
        var sum = SIMD4<Double>.zero
        for corner in 0..<8 {
            let step = SIMD3(Double(corner & 1), Double((corner >> 1) & 1), Double((corner >> 2) & 1))
            let index = SIMD3(min(low.x + step.x, 63), min(low.y + step.y, 63), min(low.z + step.z, 63))
            let weight = (step.x == 1 ? fraction.x : 1 - fraction.x) * (step.y == 1 ? fraction.y : 1 - fraction.y)
                * (step.z == 1 ? fraction.z : 1 - fraction.z)
            let blue = Int(index.z)
            sum += weight * lattice[clamped: (blue % 8) * 64 + Int(index.x), (blue / 8) * 64 + Int(index.y)]
        }
        let looked = SIMD4(sum.x, sum.y, sum.z, pixel.w)
        return pixel + (looked - pixel) * intensity
    }
}

@Suite("Lookup table", .closesContexts)
struct LookupTableTests {
    /// A smooth but thorough grading: channels mixed, curved and inverted.
    static let graded = lookupImage { r, g, b in (g, 0.15 + 0.7 * (1 - r), (b * b + r) / 2) }

    @Test("The identity table (built by the test) leaves random pixels within 2 levels")
    func identity() async throws {
        let image = randomImage(width: 41, height: 17, seed: 21, randomAlpha: true)
        let table = lookupImage { ($0, $1, $2) }
        #expect(table == LookupTable.identityImage())
        let result = try await render(image, through: try LookupTable(table: table))
        expectClose(result, DoubleImage(image), "identity table")
    }

    @Test("A grading table matches trilinear interpolation of its lattice, at intensity 1, 0.4 and 0",
          arguments: [1.0, 0.4, 0.0])
    func graded(intensity: Double) async throws {
        let image = randomImage(width: 41, height: 17, seed: 22, randomAlpha: true)
        let filter = try LookupTable(table: Self.graded, intensity: Float(intensity))
        let result = try await render(image, through: filter)
        expectClose(result, DoubleImage(image).map(lookupReference(Self.graded, intensity: intensity)),
                    "graded table, intensity \(intensity)")
    }

    @Test("The astronaut photo through a grading table")
    func photo() async throws {
        let image = try Photos.astronaut()
        let result = try await render(image, through: try LookupTable(table: Self.graded))
        expectClose(result, DoubleImage(image).map(lookupReference(Self.graded)), "graded table on the photo")
    }

    @Test("A table that is not 512x512 is rejected; NaN intensity means 1")
    func badTable() throws {
        #expect(throws: ELImageError.self) { try LookupTable(table: RGBAImage(width: 64, height: 64, pixels: [UInt8](repeating: 0, count: 64 * 64 * 4))) }
        #expect(throws: ELImageError.self) { try LookupTable(table: RGBAImage(width: 512, height: 512, pixels: [])) }
        #expect(try LookupTable(table: Self.graded, intensity: .nan).intensity == 1)
        #expect(try LookupTable(table: Self.graded, intensity: 3).intensity == 1)
    }
}
