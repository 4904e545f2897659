@testable import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// FaceReshape's warps against their closed forms, on drawn pictures whose shapes the warp
/// moves by a known amount: a dark disc at an eye grows to the radius the bulge gives it, a line
/// at a cheek moves in by the pull's distance, and every pixel outside the warps' discs is the
/// input's, exactly.
@Suite("Face reshape", .closesContexts)
struct FaceReshapeTests {
    static let width = 320, height = 240

    /// A face whose eyes are 60 px apart, in pixels of a 320×240 frame, offset by `dx`, `dy`.
    static func face(dx: Float = 0, dy: Float = 0) -> FacePoints {
        let size = SIMD2(Float(width), Float(height))
        func unit(_ x: Float, _ y: Float) -> SIMD2<Float> { SIMD2(x + dx, y + dy) / size }
        return FacePoints(leftEye: unit(130, 100), rightEye: unit(190, 100), nose: unit(160, 130),
                                mouthLeft: unit(140, 160), mouthRight: unit(180, 160))
    }

    /// White with black where `dark` says, over a grid of gray lines every 16 pixels.
    static func picture(dark: (Double, Double) -> Bool) -> RGBAImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let value: UInt8 = dark(Double(x) + 0.5, Double(y) + 0.5) ? 0 : (x % 16 == 0 || y % 16 == 0 ? 128 : 255)
                for channel in 0..<3 { pixels[(y * width + x) * 4 + channel] = value }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    static func darkCount(_ image: RGBAImage, near centre: SIMD2<Float>, within radius: Float) -> Int {
        var count = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let d = SIMD2(Float(x) + 0.5, Float(y) + 0.5) - centre
                if (d * d).sum() < radius * radius, image.pixels[(y * image.width + x) * 4] < 128 { count += 1 }
            }
        }
        return count
    }

    /// True when the pixel centre (x, y) is outside every disc of `warps` by `margin` pixels.
    static func untouched(_ x: Int, _ y: Int, _ warps: [FaceReshape.Warp], margin: Float = 1) -> Bool {
        let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
        return warps.allSatisfy { warp in
            func outside(_ centre: SIMD2<Float>, _ radius: Float) -> Bool {
                let d = p - centre
                return (d * d).sum().squareRoot() > radius + margin
            }
            return outside(warp.leftEye, warp.eyeRadius) && outside(warp.rightEye, warp.eyeRadius)
                && outside(warp.leftCheek, warp.cheekRadius) && outside(warp.rightCheek, warp.cheekRadius)
        }
    }

    @Test("No face: every pixel is the input's, and the frame is counted as passed unchanged")
    func noFace() async throws {
        let image = Self.picture { x, y in (x - 100) * (x - 100) + (y - 80) * (y - 80) < 400 }
        let reshape = FaceReshape(slimming: 1, eyeEnlargement: 1)
        let result = try await render(image, through: reshape)
        #expect(result.pixels == image.pixels)
        #expect(reshape.statistics == FaceReshape.Statistics(framesReshaped: 0, framesWithoutFaces: 1))
    }

    @Test("An eye's dark disc grows to the radius the bulge's closed form gives; the other eye's too; outside the discs nothing moves",
          arguments: [0.5, 1.0])
    func eyes(enlargement: Double) async throws {
        let face = Self.face()
        let warp = FaceReshape.warp(for: face, in: SIMD2(Float(Self.width), Float(Self.height)), slimming: 0,
                                    eyeEnlargement: Float(enlargement))
        let radius = 6.0
        let image = Self.picture { x, y in
            [warp.leftEye, warp.rightEye].contains { hypot(x - Double($0.x), y - Double($0.y)) < radius }
        }
        let reshape = FaceReshape(slimming: 0, eyeEnlargement: Float(enlargement))
        reshape.faces = [face]
        let result = try await render(image, through: reshape)
        // The output radius r reads the input at r (1 - s (1 - r²/R²)²) = 6.
        let s = Double(warp.eyeStrength), bigR = Double(warp.eyeRadius)
        var grown = radius
        for _ in 0..<50 { grown = radius / (1 - s * pow(1 - grown * grown / (bigR * bigR), 2)) }
        for eye in [warp.leftEye, warp.rightEye] {
            let area = Double(Self.darkCount(result, near: eye, within: warp.eyeRadius))
            let expected = Double.pi * grown * grown
            #expect(abs(area - expected) / expected < 0.06, "eye at \(eye): dark area \(area), expected \(expected) (radius \(grown))")
            #expect(area > Double.pi * radius * radius * (1 + s), "the eye grew")
        }
        for y in 0..<Self.height {
            for x in 0..<Self.width where Self.untouched(x, y, [warp]) {
                let offset = (y * Self.width + x) * 4
                #expect(result.pixels[offset..<offset + 4] == image.pixels[offset..<offset + 4], "(\(x), \(y)) changed")
            }
        }
        #expect(reshape.statistics.framesReshaped == 1)
    }

    @Test("Slimming: a line at each cheek moves in by the pull's distance at its centre; the grid outside the discs stays straight and exact")
    func slimming() async throws {
        let face = Self.face()
        let warp = FaceReshape.warp(for: face, in: SIMD2(Float(Self.width), Float(Self.height)), slimming: 1, eyeEnlargement: 0)
        let move = Double(abs(warp.rightMove.x))
        #expect(abs(move - 0.14 * 60) < 1e-3 && warp.rightMove.y == 0 && warp.leftMove.x > 0)
        // Dark vertical lines 2 px wide, centred `move` outside each cheek centre.
        let lines = [Double(warp.leftCheek.x) - move, Double(warp.rightCheek.x) + move]
        let image = Self.picture { x, _ in lines.contains { abs(x - $0) < 1 } }
        let reshape = FaceReshape(slimming: 1, eyeEnlargement: 0)
        reshape.faces = [face]
        let result = try await render(image, through: reshape)
        for (line, cheek) in zip(lines, [warp.leftCheek, warp.rightCheek]) {
            // The darkness-weighted centre of the line on the cheek centre's row, within a disc radius.
            let row = Int(cheek.y)
            var weight = 0.0, sum = 0.0
            for x in max(0, Int(line) - 20)..<min(Self.width, Int(line) + 20) {
                let darkness = 1 - Double(result.pixels[(row * Self.width + x) * 4]) / 255
                if darkness > 0.6 { weight += darkness; sum += darkness * (Double(x) + 0.5) }
            }
            let centre = sum / max(weight, 1e-9)
            #expect(abs(centre - Double(cheek.x)) < 0.75, "line from \(line) now at \(centre), the cheek centre is \(cheek.x)")
        }
        var changedOutside = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width where Self.untouched(x, y, [warp]) {
                let offset = (y * Self.width + x) * 4
                if result.pixels[offset..<offset + 4] != image.pixels[offset..<offset + 4] { changedOutside += 1 }
            }
        }
        #expect(changedOutside == 0)
    }

    @Test("Several faces: each one's eyes grow; a NaN face is left out; at most eight are taken")
    func severalFaces() async throws {
        let faces = [Self.face(dx: -70, dy: -30), Self.face(dx: 80, dy: 60)]
        let size = SIMD2(Float(Self.width), Float(Self.height))
        let warps = faces.map { FaceReshape.warp(for: $0, in: size, slimming: 0, eyeEnlargement: 1) }
        let eyes = warps.flatMap { [$0.leftEye, $0.rightEye] }
        let image = Self.picture { x, y in eyes.contains { hypot(x - Double($0.x), y - Double($0.y)) < 5 } }
        let reshape = FaceReshape(slimming: 0, eyeEnlargement: 1)
        var nan = Self.face()
        nan.nose.x = .nan
        reshape.faces = faces + [nan]
        #expect(reshape.faces.count == 2)
        let result = try await render(image, through: reshape)
        for (index, eye) in eyes.enumerated() {
            let area = Double(Self.darkCount(result, near: eye, within: warps[index / 2].eyeRadius))
            #expect(area > Double.pi * 25 * 1.4, "eye \(index) at \(eye): dark area \(area)")
        }
        reshape.faces = Array(repeating: Self.face(), count: 12)
        #expect(reshape.faces.count == FaceReshape.maximumFaces)
        #expect(FaceReshape(slimming: .nan, eyeEnlargement: 3).slimming == 0)
        #expect(FaceReshape(slimming: .nan, eyeEnlargement: 3).eyeEnlargement == 1)
    }
}
