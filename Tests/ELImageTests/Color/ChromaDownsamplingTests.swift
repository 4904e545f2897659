import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// RGBA → 4:2:0 chroma for every siting and both `ChromaDownsampling` filters, against an exact
/// CPU model of the filter taps (in Double), on a real photo.
@Suite("Chroma downsampling", .closesContexts)
struct ChromaDownsamplingTests {
    /// Taps along one direction, as (offset from the block's first luma sample, weight).
    static func taps(cosited: Bool, matched: Bool) -> [(Int, Double)] {
        switch (cosited, matched) {
        case (true, false): [(-1, 0.25), (0, 0.5), (1, 0.25)]
        case (false, false): [(0, 0.5), (1, 0.5)]
        // The average followed by [-1 8 -1]/6 over neighbouring chroma samples (2 luma apart).
        case (true, true): [(-3, -1), (-2, -2), (-1, 7), (0, 16), (1, 7), (2, -2), (3, -1)].map { ($0.0, Double($0.1) / 24) }
        case (false, true): [(-2, -1), (-1, -1), (0, 8), (1, 8), (2, -1), (3, -1)].map { ($0.0, Double($0.1) / 12) }
        }
    }

    static let cases: [(ChromaLocation, ChromaDownsampling)] = ChromaLocation.allCases.flatMap { location in
        ChromaDownsampling.allCases.map { (location, $0) }
    }

    /// 96 x 62 takes `MatchedPack420`'s two passes (left and centre siting, matched); 90 x 62 the
    /// three draws of rgba_to_yuv.fsh, as every siting and filter does at any size.
    @Test("I420 chroma matches the exact filter model within 1 level", arguments: 0..<cases.count, [90, 96])
    func model(caseIndex: Int, width: Int) async throws {
        let (location, filter) = Self.cases[caseIndex]
        let height = 62
        let rgba = [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", Repository.path("Examples/Media/astronaut.png"),
                                                  "-vf", "scale=\(width):\(height),format=rgba", "-f", "rawvideo", "-"]))
        let colorSpace = ColorSpace.bt709
        let source = try PixelBuffer(format: .rgba, width: width, height: height, data: rgba)
        let empty = try PixelBuffer(format: .i420, width: width, height: height, colorSpace: colorSpace, chromaLocation: location)
        let ours = try await TestContexts.make().perform { context in
            var buffer = empty
            try context.readPixels(of: try context.makeFrame(from: source), into: &buffer, chromaDownsampling: filter)
            return buffer
        }
        let across = Self.taps(cosited: location != .center, matched: filter == .matched)
        let down = Self.taps(cosited: location == .topLeft, matched: filter == .matched)
        let rows = RGBToYUVTests.signalRows(colorSpace)
        let (chromaWidth, chromaHeight) = (width / 2, height / 2)
        var worst = 0.0
        for j in 0..<chromaHeight {
            for i in 0..<chromaWidth {
                var sum = SIMD3<Double>(0, 0, 0)
                for (dy, wy) in down {
                    for (dx, wx) in across {
                        let x = min(max(2 * i + dx, 0), width - 1), y = min(max(2 * j + dy, 0), height - 1)
                        let offset = (y * width + x) * 4
                        sum += SIMD3(Double(rgba[offset]), Double(rgba[offset + 1]), Double(rgba[offset + 2])) / 255 * wx * wy
                    }
                }
                let cb = min(max((rows.cb * sum).sum() * rows.scale + 128, 0), 255)
                let cr = min(max((rows.cr * sum).sum() * rows.scale + 128, 0), 255)
                let u = Double(ours.data[ours.planes[1].offset + j * ours.planes[1].bytesPerRow + i])
                let v = Double(ours.data[ours.planes[2].offset + j * ours.planes[2].bytesPerRow + i])
                worst = max(worst, abs(u - cb.rounded()), abs(v - cr.rounded()))
            }
        }
        #expect(worst <= 1, "\(location) \(filter): chroma max error \(worst)")
        // Y' within one level of the exact value, and YV12 the same planes in the other order.
        let (kr, kb) = colorSpace.matrix.coefficients
        var lumaWorst = 0.0
        for index in 0..<(width * height) {
            let (r, g, b) = (Double(rgba[index * 4]), Double(rgba[index * 4 + 1]), Double(rgba[index * 4 + 2]))
            let exact = 16 + 219 * (kr * r + (1 - kr - kb) * g + kb * b) / 255
            lumaWorst = max(lumaWorst, abs(Double(ours.data[index]) - exact.rounded()))
        }
        #expect(lumaWorst <= 1, "\(location) \(filter): Y' max error \(lumaWorst)")
        let yv12 = try await TestContexts.make().perform { context in
            var buffer = try PixelBuffer(format: .yv12, width: width, height: height, colorSpace: colorSpace, chromaLocation: location)
            try context.readPixels(of: try context.makeFrame(from: source), into: &buffer, chromaDownsampling: filter)
            return buffer
        }
        let lumaBytes = width * height, chromaBytes = (width / 2) * (height / 2)
        #expect(yv12.data[..<lumaBytes] == ours.data[..<lumaBytes])
        #expect(yv12.data[lumaBytes..<(lumaBytes + chromaBytes)] == ours.data[(lumaBytes + chromaBytes)...],
                "YV12's first chroma plane is I420's Cr")
        #expect(yv12.data[(lumaBytes + chromaBytes)...] == ours.data[lumaBytes..<(lumaBytes + chromaBytes)])
    }

    @Test("Y'CbCr → RGBA → Y'CbCr: the matched filter keeps chroma (≥ 52 dB, measured 54), the average blurs it (< 48, measured 45)",
          arguments: ChromaLocation.allCases)
    func roundTrip(location: ChromaLocation) async throws {
        let (width, height) = (160, 120)
        let data = [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", Repository.path("Examples/Media/astronaut.png"),
                                                  "-vf", "scale=\(width):\(height)", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"]))
        let source = try PixelBuffer(format: .i420, width: width, height: height, data: data, colorSpace: .bt709,
                                     chromaLocation: location)
        let context = try TestContexts.make()
        var psnr: [ChromaDownsampling: Double] = [:]
        for filter in ChromaDownsampling.allCases {
            let back = try await context.perform { context in
                var buffer = try PixelBuffer(format: .i420, width: width, height: height, colorSpace: .bt709,
                                             chromaLocation: location)
                try context.readPixels(of: try context.makeFrame(from: source), into: &buffer, chromaDownsampling: filter)
                return buffer
            }
            let chroma = (width * height)..<data.count
            psnr[filter] = StillsReference.psnr(Array(back.data[chroma]), Array(data[chroma]))
        }
        let matched = psnr[.matched] ?? 0, average = psnr[.average] ?? 0
        #expect(matched >= 52, "\(location): chroma PSNR matched \(matched) dB, average \(average) dB")
        #expect(average < 48, "\(location): chroma PSNR matched \(matched) dB, average \(average) dB")
    }
}
