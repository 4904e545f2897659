import Foundation

/// An RGBA picture, transparent at first, that the overlay draws lines into on the CPU.
struct OverlayCanvas {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// A straight line `thickness` pixels wide between two points, in `colour` (RGBA).
    mutating func line(from start: CGPoint, to end: CGPoint, thickness: Int, colour: SIMD4<UInt8>) {
        let dx = end.x - start.x, dy = end.y - start.y
        let steps = max(1, Int(max(abs(dx), abs(dy)).rounded(.up)))
        let half = thickness / 2
        for step in 0...steps {
            let t = Double(step) / Double(steps)
            let x = Int((start.x + dx * t).rounded()), y = Int((start.y + dy * t).rounded())
            for offsetY in -half..<(thickness - half) {
                for offsetX in -half..<(thickness - half) { plot(x + offsetX, y + offsetY, colour) }
            }
        }
    }

    /// The outline of a closed polygon.
    mutating func polygon(_ points: [CGPoint], thickness: Int, colour: SIMD4<UInt8>) {
        for (index, point) in points.enumerated() {
            line(from: point, to: points[(index + 1) % points.count], thickness: thickness, colour: colour)
        }
    }

    private mutating func plot(_ x: Int, _ y: Int, _ colour: SIMD4<UInt8>) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let offset = (y * width + x) * 4
        pixels[offset] = colour.x
        pixels[offset + 1] = colour.y
        pixels[offset + 2] = colour.z
        pixels[offset + 3] = colour.w
    }
}
