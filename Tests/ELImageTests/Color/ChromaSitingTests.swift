import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Subsampled chroma is interpolated bilinearly at the position its siting puts it; checked against
/// an exact CPU model (swscale cannot express MPEG-2 "left" siting vertically, see SwscaleReference).
@Suite("Chroma siting", .closesContexts)
struct ChromaSitingTests {
    /// Exact Y'CbCr → RGB of one pixel, in Double.
    static func rgb(y: Double, cb: Double, cr: Double, colorSpace: ColorSpace) -> SIMD3<Double> {
        let (kr, kb) = colorSpace.matrix.coefficients
        let kg = 1 - kr - kb
        let (luma, blue, red) = colorSpace.range == .limited
            ? ((y - 16) / 219, (cb - 128) / 224, (cr - 128) / 224)
            : (y / 255, (cb - 128) / 255, (cr - 128) / 255)
        let r = luma + 2 * (1 - kr) * red
        let b = luma + 2 * (1 - kb) * blue
        let g = (luma - kr * r - kb * b) / kg
        return SIMD3(r, g, b) * 255
    }

    /// Bilinear chroma at luma pixel (x, y) for a plane `width` x `height` whose sample (i, j) sits
    /// at luma position (divisor.x * i + offset.x, divisor.y * j + offset.y) (pixel centres at n).
    static func chroma(_ plane: ArraySlice<UInt8>, width: Int, height: Int, x: Int, y: Int,
                       divisor: (Int, Int), offset: (Double, Double)) -> Double {
        let px = min(max((Double(x) - offset.0) / Double(divisor.0), 0), Double(width - 1))
        let py = min(max((Double(y) - offset.1) / Double(divisor.1), 0), Double(height - 1))
        let (x0, y0) = (Int(px.rounded(.down)), Int(py.rounded(.down)))
        let (x1, y1) = (min(x0 + 1, width - 1), min(y0 + 1, height - 1))
        let (fx, fy) = (px - Double(x0), py - Double(y0))
        let start = plane.startIndex
        func at(_ i: Int, _ j: Int) -> Double { Double(plane[start + j * width + i]) }
        let top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx
        let bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx
        return top * (1 - fy) + bottom * fy
    }

    static let cases: [(PixelFormat, ChromaLocation, (Double, Double))] = [
        (.i420, .left, (0, 0.5)),      // MPEG-2 / H.264: co-sited horizontally, between rows
        (.i420, .center, (0.5, 0.5)),  // JPEG: centred in the 2x2 block
        (.i420, .topLeft, (0, 0)),     // BT.2020 / DV: co-sited with the top-left sample
        (.i422, .left, (0, 0)),
        (.i422, .center, (0.5, 0)),
    ]

    @Test("GPU chroma interpolation matches the exact model within 1 level", arguments: 0..<cases.count)
    func siting(caseIndex: Int) async throws {
        let (format, location, offset) = Self.cases[caseIndex]
        let (width, height) = (97, 61)  // odd: chroma rounds up
        let divisor = format == .i420 ? (2, 2) : (2, 1)
        var data = randomBytes(format.byteCount(width: width, height: height), seed: UInt64(caseIndex + 40))
        // Keep luma mid-range so nothing clips and every difference shows.
        for index in 0..<(width * height) { data[index] = 60 + data[index] / 2 }
        let colorSpace = ColorSpace.bt709
        let buffer = try PixelBuffer(format: format, width: width, height: height, data: data,
                                     colorSpace: colorSpace, chromaLocation: location)
        let image = try await convertOnGPU(buffer, context: try TestContexts.make())
        let chromaShape = format.planeShape(1, width: width, height: height)
        let cbPlane = data[(width * height)..<(width * height + chromaShape.width * chromaShape.height)]
        let crPlane = data[(width * height + chromaShape.width * chromaShape.height)...]
        var worst = 0.0, total = 0.0
        for y in 0..<height {
            for x in 0..<width {
                let cb = Self.chroma(cbPlane, width: chromaShape.width, height: chromaShape.height, x: x, y: y,
                                     divisor: divisor, offset: offset)
                let cr = Self.chroma(crPlane, width: chromaShape.width, height: chromaShape.height, x: x, y: y,
                                     divisor: divisor, offset: offset)
                let expected = Self.rgb(y: Double(data[y * width + x]), cb: cb, cr: cr, colorSpace: colorSpace)
                let got = image[x, y]
                for channel in 0..<3 {
                    let reference = min(max(expected[channel], 0), 255).rounded()
                    let difference = abs(Double(got[channel]) - reference)
                    worst = max(worst, difference)
                    total += difference
                }
            }
        }
        let mean = total / Double(width * height * 3)
        #expect(worst <= 1, "\(format) \(location): max \(worst), mean \(mean)")
        #expect(mean <= 0.25, "\(format) \(location): mean \(mean)")
    }
}
