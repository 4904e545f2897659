import ELImage
import ELImageTestSupport
import Testing

@Suite("Orientation", .closesContexts)
struct OrientationTests {
    /// Where output pixel (x, y) comes from in a `width` x `height` input: rotate clockwise, then
    /// mirror the result left to right. Written from the definition, not from the shader's matrix.
    static func source(of x: Int, _ y: Int, orientation: Orientation, width: Int, height: Int) -> (Int, Int) {
        let (outWidth, _) = orientation.outputSize(width: width, height: height)
        let column = orientation.mirrored ? outWidth - 1 - x : x
        switch orientation.rotation {
        case .none: return (column, y)
        case .clockwise90: return (y, height - 1 - column)   // input top-left lands at output top-right
        case .rotate180: return (width - 1 - column, height - 1 - y)
        case .clockwise270: return (width - 1 - y, column)
        }
    }

    @Test("Each of the 8 orientations maps every pixel (corners included) and swaps sizes for 90/270",
          arguments: Orientation.allCases)
    func orientation(_ orientation: Orientation) async throws {
        let (width, height) = (7, 4)
        let pixels = randomBytes(width * height * 4, seed: 77).enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }
        let buffer = try PixelBuffer(format: .rgba, width: width, height: height, data: pixels)
        let image = try await convertOnGPU(buffer, orientation: orientation, context: try TestContexts.make())
        let size = orientation.outputSize(width: width, height: height)
        #expect(image.width == size.width && image.height == size.height)
        #expect((image.width, image.height) == (orientation.swapsDimensions ? (4, 7) : (7, 4)))
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (sx, sy) = Self.source(of: x, y, orientation: orientation, width: width, height: height)
                let offset = (sy * width + sx) * 4
                let expected = SIMD4(pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
                #expect(image[x, y] == expected, "\(orientation) pixel \(x),\(y) should show input \(sx),\(sy)")
            }
        }
    }

    @Test("followed(by:) maps every pixel as the two orientations applied one after the other (all 64 pairs)")
    func composition() {
        let (width, height) = (5, 3)
        for first in Orientation.allCases {
            for second in Orientation.allCases {
                let composed = first.followed(by: second)
                let middle = first.outputSize(width: width, height: height)
                let final = second.outputSize(width: middle.width, height: middle.height)
                #expect(composed.outputSize(width: width, height: height) == final, "\(first) then \(second)")
                for y in 0..<final.height {
                    for x in 0..<final.width {
                        let (mx, my) = Self.source(of: x, y, orientation: second, width: middle.width, height: middle.height)
                        let twoSteps = Self.source(of: mx, my, orientation: first, width: width, height: height)
                        let oneStep = Self.source(of: x, y, orientation: composed, width: width, height: height)
                        #expect(oneStep == twoSteps, "\(first) then \(second) is not \(composed) at \(x),\(y)")
                    }
                }
            }
        }
        #expect(Orientation(rotation: .clockwise90).followed(by: Orientation(rotation: .clockwise90)) == Orientation(rotation: .rotate180))
    }

    @Test("Named corners: a 90° turn puts the top-left corner at the top right")
    func corners() async throws {
        // 2x2: red, green / blue, white.
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]
        let buffer = try PixelBuffer(format: .rgba, width: 2, height: 2, data: pixels)
        let context = try TestContexts.make()
        let turned = try await convertOnGPU(buffer, orientation: Orientation(rotation: .clockwise90), context: context)
        #expect(turned[1, 0] == SIMD4(255, 0, 0, 255))  // red now top right
        #expect(turned[0, 0] == SIMD4(0, 0, 255, 255))  // blue now top left
        let mirrored = try await convertOnGPU(buffer, orientation: Orientation(mirrored: true), context: context)
        #expect(mirrored[0, 0] == SIMD4(0, 255, 0, 255))  // green now top left
    }
}
