import ELImage

/// A rectangle in pixels: x, y of the top-left corner, width, height.
struct PatchRect: Sendable, CustomStringConvertible {
    let name: String
    let x: Int, y: Int, width: Int, height: Int
    var description: String { "\(name) (\(x),\(y) \(width)x\(height))" }
}

/// Image-quality measures on the BT.709 luma (0...255).
enum BeautyMetrics {
    static func luma(_ image: RGBAImage) -> [Double] {
        stride(from: 0, to: image.pixels.count, by: 4).map { (index: Int) -> Double in
            let red = 0.2126 * Double(image.pixels[index])
            let green = 0.7152 * Double(image.pixels[index + 1])
            let blue = 0.0722 * Double(image.pixels[index + 2])
            return red + green + blue
        }
    }

    /// Variance over `rect` of the 4-neighbour Laplacian of the luma: high-frequency energy.
    static func laplacianVariance(_ image: RGBAImage, in rect: PatchRect) -> Double {
        let y = luma(image), width = image.width
        var values: [Double] = []
        for row in rect.y..<(rect.y + rect.height) {
            for column in rect.x..<(rect.x + rect.width) {
                let center = y[row * width + column]
                let vertical = y[(row - 1) * width + column] + y[(row + 1) * width + column]
                let horizontal = y[row * width + column - 1] + y[row * width + column + 1]
                values.append(vertical + horizontal - 4 * center)
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        return values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
    }

    /// Mean over `rect` of the squared central-difference gradient of the luma: edge energy.
    static func gradientEnergy(_ image: RGBAImage, in rect: PatchRect) -> Double {
        let y = luma(image), width = image.width
        var sum = 0.0
        for row in rect.y..<(rect.y + rect.height) {
            for column in rect.x..<(rect.x + rect.width) {
                let gx = (y[row * width + column + 1] - y[row * width + column - 1]) / 2
                let gy = (y[(row + 1) * width + column] - y[(row - 1) * width + column]) / 2
                sum += gx * gx + gy * gy
            }
        }
        return sum / Double(rect.width * rect.height)
    }
}
