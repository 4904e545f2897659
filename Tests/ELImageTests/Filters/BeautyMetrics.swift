import ELImage
import ELImageTestSupport
import Foundation

/// A rectangle in pixels: x, y of the top-left corner, width, height; for a mask check, the highest
/// mean mask value allowed in it.
struct PatchRect: Sendable, Decodable, CustomStringConvertible {
    let name: String
    let x: Int, y: Int, width: Int, height: Int
    var limit: Double?
    var description: String { "\(name) (\(x),\(y) \(width)x\(height))" }
}

/// Image-quality measures on the BT.709 luma (0...255), as the beauty issue defines them.
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
    static func laplacianVariance(_ y: [Double], width: Int, in rect: PatchRect) -> Double {
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

    /// Mean over `rect` of the squared 3x3 Sobel gradient of the luma: edge energy.
    static func sobelEnergy(_ y: [Double], width: Int, in rect: PatchRect) -> Double {
        var sum = 0.0
        for row in rect.y..<(rect.y + rect.height) {
            for column in rect.x..<(rect.x + rect.width) {
                func at(_ dx: Int, _ dy: Int) -> Double { y[(row + dy) * width + column + dx] }
                let gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))
                let gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))
                sum += gx * gx + gy * gy
            }
        }
        return sum / Double(rect.width * rect.height)
    }

    /// Mean over `rect` of `values` (0...255 per pixel, e.g. a mask's red channel).
    static func mean(_ image: RGBAImage, channel: Int = 0, in rect: PatchRect) -> Double {
        var sum = 0.0
        for row in rect.y..<(rect.y + rect.height) {
            for column in rect.x..<(rect.x + rect.width) {
                sum += Double(image.pixels[(row * image.width + column) * 4 + channel])
            }
        }
        return sum / Double(rect.width * rect.height) / 255
    }
}

/// Copies of a portrait that move its skin where other portraits' skin is: grayscale, warm and
/// cool white balance, darker skin (a scale in linear light) and washed-out colour.
enum PortraitVariant: String, CaseIterable, Sendable {
    case original, grayscale, warm, cool, darker, desaturated

    func apply(to image: RGBAImage) -> RGBAImage {
        var pixels = image.pixels
        for index in stride(from: 0, to: pixels.count, by: 4) {
            var rgb = (0..<3).map { Double(pixels[index + $0]) / 255 }
            switch self {
            case .original: break
            case .grayscale:
                let y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
                rgb = [y, y, y]
            case .warm: rgb = Self.scaledInLinearLight(rgb, by: [1.15, 1.0, 0.75])
            case .cool: rgb = Self.scaledInLinearLight(rgb, by: [0.8, 1.0, 1.2])
            case .darker: rgb = Self.scaledInLinearLight(rgb, by: [0.25, 0.25, 0.25])
            case .desaturated:
                let y = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
                rgb = rgb.map { y + 0.4 * ($0 - y) }
            }
            for channel in 0..<3 { pixels[index + channel] = UInt8((min(max(rgb[channel], 0), 1) * 255).rounded()) }
        }
        return RGBAImage(width: image.width, height: image.height, pixels: pixels)
    }

    private static func scaledInLinearLight(_ rgb: [Double], by scale: [Double]) -> [Double] {
        zip(rgb, scale).map { value, factor in
            let linear = value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
            let scaled = min(linear * factor, 1)
            return scaled <= 0.0031308 ? scaled * 12.92 : 1.055 * pow(scaled, 1 / 2.4) - 0.055
        }
    }
}
